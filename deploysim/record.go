package deploysim

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/spi"
)

// recordClaim notes a delivery and whether another worker still held a live lease on the same
// execution (a double delivery); every earlier lease of the execution is superseded.
func (s *sim) recordClaim(w *worker, l spi.Lease) {
	rec := claimRec{exec: l.Package.ExecutionID, worker: w.name, token: l.Token, at: s.now}
	for _, c := range s.claims {
		lr := s.leases[c.token]
		if c.exec != rec.exec || lr == nil || lr.acked || lr.superseded {
			continue
		}
		if lr.worker != w.name && lr.expires > s.now && !lr.lost {
			rec.overlapping = lr.worker
		}
		lr.superseded = true
	}
	s.claims = append(s.claims, rec)
	s.leases[l.Token] = &leaseRec{exec: rec.exec, worker: w.name, expires: l.ExpiresAt}
}

func (s *sim) superseded(w *worker) bool {
	lr := s.leases[w.lease.Token]
	return lr != nil && lr.superseded
}

// recordEffect notes a live effect run, and whether the log already held the step's completion.
func (s *sim) recordEffect(w *worker, step string, attempt int, tool string) {
	evs, _ := s.events.Read(context.Background(), w.cur)
	done := false
	for _, e := range evs {
		if e.EventType == manifest.StepCompleted && stepOf(e.Payload) == step {
			done = true
		}
	}
	fake, _ := flowscript.LookupFake(tool)
	s.effects = append(s.effects, effectCall{exec: w.cur, step: step, tool: tool, worker: w.name, attempt: attempt, atMostOnce: fake.AtMostOnce,
		completedBefore: done, superseded: s.superseded(w)})
}

func stepOf(payload json.RawMessage) string {
	var p struct {
		StepID string `json:"stepId"`
	}
	_ = json.Unmarshal(payload, &p)
	return p.StepID
}

// drive is the outside world: it answers every new park once — an approval gate with a fixed
// answer, an in-doubt park with the verdict the effect ledger proves (the operator checked the
// external system).
func (s *sim) drive(ctx context.Context, permille int) {
	for _, e := range s.execs {
		v, ok := s.views[e.id]
		if !ok || s.dirty[e.id] {
			evs, err := s.events.Read(ctx, e.id)
			if err != nil || len(evs) == 0 {
				continue
			}
			st, err := fold.Fold(fold.Current(), nil, evs)
			if err != nil {
				continue
			}
			v = view{evs: evs, st: st}
			s.views[e.id], s.dirty[e.id] = v, false
		}
		evs, st := v.evs, v.st
		if st.Status != fold.StatusSuspended {
			continue
		}
		key := fmt.Sprintf("%s#%d", e.id, st.Sequence)
		if s.answered[key] || !s.permille(permille) {
			continue
		}
		s.answered[key] = true
		var on struct {
			On        string `json:"on"`
			Condition struct {
				StepID  string `json:"stepId"`
				Attempt int64  `json:"attempt"`
			} `json:"condition"`
		}
		_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
		h := map[string]any{}
		switch on.On {
		case gateOK:
			h["resume"] = map[string]any{"eventType": gateOK, "payload": map[string]any{"approved": true, "by": "operator"}}
		case fold.GateInDoubt:
			h["verdict"] = s.verdict(e.id, evs, on.Condition.StepID, on.Condition.Attempt)
		default:
			continue
		}
		_ = s.disp.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: e.id, FlowID: e.flow, Hints: mustJSON(h)})
	}
}

func (s *sim) verdict(exec string, evs []spi.Envelope, step string, attempt int64) ingress.Verdict {
	for _, c := range s.effects {
		if c.exec == exec && c.step == step && int64(c.attempt) == attempt {
			for _, e := range evs {
				var p struct {
					StepID  string          `json:"stepId"`
					Attempt int64           `json:"attempt"`
					ToolID  string          `json:"toolId"`
					Input   json.RawMessage `json:"input"`
				}
				_ = json.Unmarshal(e.Payload, &p)
				if e.EventType == manifest.StepStarted && p.StepID == step && p.Attempt == attempt {
					return ingress.Verdict{StepID: step, Attempt: attempt, Verdict: ingress.VerdictApplied, Output: fakeOutput(c.tool, p.Input)}
				}
			}
			return ingress.Verdict{StepID: step, Attempt: attempt, Verdict: ingress.VerdictApplied}
		}
	}
	return ingress.Verdict{StepID: step, Attempt: attempt, Verdict: ingress.VerdictNotApplied}
}
