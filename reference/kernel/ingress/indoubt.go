package ingress

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// In-doubt verdicts (K9.3, spec §5; docs/interpretations.md I-KERNEL-52). A step whose effect may
// or may not have happened is recorded as EFFECT_INDOUBT {stepId, attempt} and the execution parks
// on the reserved gate fold.GateInDoubt with condition {stepId, attempt}. The only resume accepted
// there is a verdict: event type fold.GateInDoubt, payload
//
//	{"stepId": S, "attempt": N, "verdict": "applied" | "not-applied", "output"?: any}
//
// naming the step and attempt of the EFFECT_INDOUBT fact. It is recorded as a kernel
// DECISION_RECORDED {id: VerdictDecisionID(S, N), choice: {verdict, output?}} beside a null
// EXECUTION_RESUMED, which re-opens the execution without a gate passthrough.
const (
	VerdictApplied    = "applied"     // the effect happened; output (optional) is its result
	VerdictNotApplied = "not-applied" // the effect did not happen; the step may run again
	// VerdictDecisionPrefix starts every verdict decision id.
	VerdictDecisionPrefix = "__loom_indoubt:"
)

// VerdictDecisionID is the decision id of the verdict for stepID's attempt.
func VerdictDecisionID(stepID string, attempt int64) string {
	return VerdictDecisionPrefix + stepID + "#" + strconv.FormatInt(attempt, 10)
}

// Verdict is the payload of a verdict resume.
type Verdict struct {
	StepID  string          `json:"stepId"`
	Attempt int64           `json:"attempt"`
	Verdict string          `json:"verdict"`
	Output  json.RawMessage `json:"output,omitempty"`
}

// VerdictRequest builds the resume request carrying a verdict.
func VerdictRequest(v Verdict) Request {
	return Request{EventType: fold.GateInDoubt, Payload: mustJSON(v)}
}

// verdictAppend validates a resume at an in-doubt park and returns the kernel DECISION_RECORDED
// recording it. Anything that is not a verdict for the parked step and attempt, beside the kernel's
// EFFECT_INDOUBT fact for them, is a *ResumePayloadValidationError.
func verdictAppend(st fold.State, f Facts, pv parkView, req Request, authenticated bool) (Append, error) {
	et := req.EventType
	if et != fold.GateInDoubt {
		return Append{}, invalid(et, "the execution is parked in doubt; only a verdict (event type "+fold.GateInDoubt+") is accepted", nil)
	}
	if req.DiscardLegacyAnswers != nil {
		return Append{}, invalid(et, "a verdict cannot carry discardLegacyAnswers", nil)
	}
	m, ok := object(req.Payload)
	if !ok {
		return Append{}, invalid(et, "a verdict is an object {stepId, attempt, verdict, output?}", nil)
	}
	for k := range m {
		switch k {
		case "stepId", "attempt", "verdict", "output":
		default:
			return Append{}, invalid(et, fmt.Sprintf("a verdict has no member %q", k), nil)
		}
	}
	step, ok1 := str(m["stepId"])
	attempt, ok2 := integer(m["attempt"])
	verdict, ok3 := str(m["verdict"])
	if !ok1 || step == "" || !ok2 || !ok3 {
		return Append{}, invalid(et, "a verdict needs stepId (string), attempt (integer) and verdict (string)", nil)
	}
	if verdict != VerdictApplied && verdict != VerdictNotApplied {
		return Append{}, invalid(et, fmt.Sprintf("verdict %q is neither %q nor %q", verdict, VerdictApplied, VerdictNotApplied), nil)
	}
	if _, has := m["output"]; has && verdict != VerdictApplied {
		return Append{}, invalid(et, "output is only for an applied verdict", nil)
	}
	fact, ok := inDoubtFact(f)
	if !ok {
		return Append{}, invalid(et, "no EFFECT_INDOUBT fact precedes the in-doubt park; nothing can be answered", nil)
	}
	if (pv.HasStep && pv.StepID != fact.StepID) || (pv.HasAttempt && pv.Attempt != fact.Attempt) {
		return Append{}, invalid(et, "the in-doubt park's condition disagrees with the EFFECT_INDOUBT fact", nil)
	}
	if step != fact.StepID || attempt != fact.Attempt {
		detail := "the verdict does not name the step and attempt the park is in doubt about"
		if authenticated { // like the gate's name, the parked step is told to an authenticated caller only
			detail = fmt.Sprintf("the verdict names step %q attempt %d; the park is in doubt about step %q attempt %d",
				step, attempt, fact.StepID, fact.Attempt)
		}
		return Append{}, invalid(et, detail, nil)
	}
	id := VerdictDecisionID(step, attempt)
	if _, done := st.Variables.Decisions[id]; done {
		return Append{}, invalid(et, "a verdict for this step and attempt is already recorded", nil)
	}
	choice := map[string]json.RawMessage{"verdict": mustJSON(verdict)}
	if out, has := m["output"]; has {
		choice["output"] = out
	}
	payload := mustJSON(map[string]any{"id": id, "choice": choice})
	return Append{EventType: manifest.DecisionRecorded, Payload: payload, Metadata: kernelMeta()}, nil
}

// inDoubtFact returns the last EFFECT_INDOUBT recorded between the previous park and the current
// one: a fact from before an earlier park belongs to a park already answered.
func inDoubtFact(f Facts) (InDoubtFact, bool) {
	pk, ok := f.currentPark()
	if !ok {
		return InDoubtFact{}, false
	}
	prev := int64(-1)
	if n := len(f.Parks); n >= 2 {
		prev = f.Parks[n-2].Sequence
	}
	for i := len(f.InDoubt) - 1; i >= 0; i-- {
		if s := f.InDoubt[i].Sequence; s < pk.Sequence && s > prev {
			return f.InDoubt[i], true
		}
	}
	if f.Base >= 0 && prev <= f.Base && pk.StepID != "" && pk.HasAttempt {
		// compacted: the EFFECT_INDOUBT before this park may be covered by the snapshot; the
		// park's condition, which the kernel writes equal to it, stands for it (I-LIFECYCLE-11)
		return InDoubtFact{Sequence: -1, StepID: pk.StepID, Attempt: pk.Attempt}, true
	}
	return InDoubtFact{}, false
}
