package kernel

import (
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
)

// inDoubt handles an at-most-once step whose last attempt has no recorded outcome (K9.3). With a
// verdict for that attempt in the log (ingress.VerdictDecisionID), an applied verdict settles the
// step with its output (served) and a not-applied one lets it run again; without one the execution
// records EFFECT_INDOUBT and parks on the in-doubt gate. r.mu is held.
func (c *Context) inDoubt(stepID string, f frameRec) (json.RawMessage, bool, error) {
	r := c.r
	choice, ok := r.decisions[ingress.VerdictDecisionID(stepID, int64(f.attempt))]
	if ok && !r.rt.cfg.Hooks.VerdictWithoutFact && !r.inDoubtFact(stepID, f.attempt) {
		// spec §5: a verdict is honoured only beside the kernel's EFFECT_INDOUBT for the same step
		// and attempt; a verdict without one is not a verdict.
		r.rt.cfg.Warn(Warning{ExecutionID: r.execID, Code: "verdict-without-indoubt", Clauses: []string{"S5.decide.verdict-beside-indoubt"},
			Message: fmt.Sprintf("a verdict for step %q attempt %d has no EFFECT_INDOUBT beside it; it is not honoured", stepID, f.attempt)})
		ok = false
	}
	if ok {
		var v struct {
			Verdict string          `json:"verdict"`
			Output  json.RawMessage `json:"output"`
		}
		_ = json.Unmarshal(choice, &v)
		if v.Verdict == ingress.VerdictApplied {
			out := v.Output
			if out == nil {
				out = json.RawMessage("null")
			}
			r.mustAppend(newEvent{eventType: manifest.StepCompleted, payload: obj("stepId", stepID, "output", out)})
			r.frames[stepID] = frameRec{status: fold.FrameCompleted, attempt: f.attempt, output: out}
			return out, true, nil
		}
		return nil, false, nil // not applied: run it again
	}
	r.unserved = true // an in-doubt park is an outcome a re-run does not serve (spec §3)
	if r.readOnly && (r.startStatus != fold.StatusSuspended || r.parkedOn != fold.GateInDoubt) {
		panic(abortSignal{r.divergence(manifest.ExecutionSuspended + " on " + fold.GateInDoubt)})
	}
	if r.readOnly || (r.startStatus == fold.StatusSuspended && r.parkedOn == fold.GateInDoubt) {
		r.parked, r.parkedGate = true, fold.GateInDoubt
		panic(parkSignal{})
	}
	cond := obj("stepId", stepID, "attempt", f.attempt)
	r.mustAppend(
		newEvent{eventType: manifest.EffectInDoubt, payload: cond},
		newEvent{eventType: manifest.ExecutionSuspended, payload: obj("on", fold.GateInDoubt, "condition", cond)},
	)
	r.parked, r.parkedGate = true, fold.GateInDoubt
	panic(parkSignal{})
}

// inDoubtFact reports whether the log holds EFFECT_INDOUBT {stepId, attempt}. It reads the log:
// the fact is not folded, and this path is taken only for an at-most-once step left in doubt.
// r.mu is held.
func (r *run) inDoubtFact(stepID string, attempt int) bool {
	evs, err := r.rt.cfg.Store.Read(r.ctx, r.execID)
	if err != nil {
		return false
	}
	names := func(raw json.RawMessage) bool {
		var p struct {
			StepID  string `json:"stepId"`
			Attempt int    `json:"attempt"`
		}
		return json.Unmarshal(raw, &p) == nil && p.StepID == stepID && p.Attempt == attempt
	}
	for _, e := range evs {
		if e.EventType == manifest.EffectInDoubt && names(e.Payload) {
			return true
		}
	}
	if len(evs) == 0 || evs[0].Sequence == 0 {
		return false
	}
	// Compacted (spec §7): the EFFECT_INDOUBT follows the STEP_STARTED of its attempt. When that
	// start is still in the log, so would be the fact, and there is none. When the snapshot covers
	// the start, it may cover the fact too, and the archive is never read to look: the verdict is
	// honoured as the gate recorded it (I-LIFECYCLE-11).
	for _, e := range evs {
		if e.EventType == manifest.StepStarted && names(e.Payload) {
			return false
		}
	}
	return true
}
