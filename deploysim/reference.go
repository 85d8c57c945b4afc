package deploysim

import (
	"context"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
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
	out := map[string]fold.State{}
	for id, evs := range s.referenceLogs(code) {
		st, _ := fold.Fold(fold.Current(), nil, evs)
		out[id] = st
	}
	return out
}

// referenceLogs runs the executions on one current worker with no faults and returns their logs.
func (s *sim) referenceLogs(code int) map[string][]spi.Envelope {
	cfg := s.cfg
	cfg.Workers, cfg.Broken = 1, Broken{}
	sc := Scenario{Name: s.sc.Name + "/single-worker", Profiles: []string{fold.Current().Version()}, Code: code}
	r := newSim(cfg, sc)
	r.run()
	out := map[string][]spi.Envelope{}
	for _, e := range r.execs {
		out[e.id], _ = r.events.Read(context.Background(), e.id)
	}
	return out
}
