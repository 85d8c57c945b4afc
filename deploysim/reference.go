package deploysim

import (
	"context"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// reference runs the same executions on one current worker with no faults and returns their
// final states: what the fleet must end with (sim/single-worker).
//
// The single worker runs the code the execution was started under (its recorded codeHash), so a
// fleet mid-upgrade is compared with the code each execution is bound to.
func (s *sim) reference() map[string]map[string]fold.State {
	out := map[string]map[string]fold.State{}
	for _, code := range []int{s.sc.Code, s.sc.UpgradeCode} {
		if code == 0 {
			continue
		}
		out[codeHash("", code)] = s.referenceAt(code)
	}
	return out
}

func (s *sim) referenceAt(code int) map[string]fold.State {
	cfg := s.cfg
	cfg.Workers, cfg.Broken = 1, Broken{}
	sc := Scenario{Name: s.sc.Name + "/single-worker", Profiles: []string{fold.Current().Version()}, Code: code}
	r := newSim(cfg, sc)
	r.run()
	out := map[string]fold.State{}
	for _, e := range r.execs {
		evs, _ := r.events.Read(context.Background(), e.id)
		st, _ := fold.Fold(fold.Current(), nil, evs)
		out[e.id] = st
	}
	return out
}
