package ingressprops

import (
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// logBuilder appends envelopes of one execution.
type logBuilder struct{ evs []spi.Envelope }

func (b *logBuilder) add(eventType, payload string, kernel bool) {
	e := spi.Envelope{
		ID: fmt.Sprintf("g%d", len(b.evs)), WorkflowID: "wf", ExecutionID: "x", EventType: eventType,
		Sequence: int64(len(b.evs)), Timestamp: 1000 + int64(len(b.evs)), Payload: json.RawMessage(payload),
	}
	if kernel {
		e.Metadata = json.RawMessage(`{"kernel":true}`)
	}
	b.evs = append(b.evs, e)
}

// BuildLog writes a realistic log for the scenario: a start, noise that changes nothing the gate
// decides on (served steps, decisions, emits, answered parks, closed human steps, legacy entries
// that were spent), the legacy shape, and the events that leave the execution in its status.
func BuildLog(sc Scenario) []spi.Envelope {
	b := &logBuilder{}
	if sc.Status == fold.StatusPending {
		return nil
	}
	b.add("EXECUTION_STARTED", `{"input":`+inputJSON+`,"flowHash":"sha256:aa"}`, false)
	for i, op := range sc.Noise {
		switch op {
		case "step":
			b.add("STEP_STARTED", fmt.Sprintf(`{"stepId":"s%d","attempt":1,"input":{}}`, i), false)
			b.add("STEP_COMPLETED", fmt.Sprintf(`{"stepId":"s%d","output":%d}`, i, i), false)
		case "decision":
			b.add("DECISION_RECORDED", fmt.Sprintf(`{"id":"d%d","choice":%d}`, i, i), false)
		case "emit":
			b.add("progress", fmt.Sprintf(`{"p":%d}`, i), false)
		case "answered-park":
			b.add("EXECUTION_SUSPENDED", fmt.Sprintf(`{"on":"g%d"}`, i), false)
			b.add("EXECUTION_RESUMED", fmt.Sprintf(`{"ans":%d}`, i), false)
		case "spent-stray":
			b.add("EXECUTION_RESUMED", fmt.Sprintf(`{"stray":%d}`, i), false)
			b.add("EXECUTION_SUSPENDED", fmt.Sprintf(`{"on":"g%d"}`, i), false)
			b.add("EXECUTION_RESUMED", fmt.Sprintf(`{"ans":%d}`, i), false)
		case "closed-human":
			b.add("STEP_STARTED", fmt.Sprintf(`{"stepId":"hc%d","attempt":1,"kind":"human","input":{}}`, i), false)
			b.add("EXECUTION_SUSPENDED", fmt.Sprintf(`{"on":"hg%d","condition":{"stepId":"hc%d"}}`, i, i), false)
			b.add("EXECUTION_RESUMED", fmt.Sprintf(`{"ans":%d}`, i), false)
			b.add("STEP_COMPLETED", fmt.Sprintf(`{"stepId":"hc%d","output":%d}`, i, i), false)
		case "retry":
			b.add("STEP_STARTED", fmt.Sprintf(`{"stepId":"r%d","attempt":1,"input":{}}`, i), false)
			b.add("STEP_RETRYING", fmt.Sprintf(`{"stepId":"r%d","attempt":2,"error":"flaky"}`, i), false)
			b.add("STEP_STARTED", fmt.Sprintf(`{"stepId":"r%d","attempt":2,"input":{}}`, i), false)
			b.add("STEP_COMPLETED", fmt.Sprintf(`{"stepId":"r%d","output":%d}`, i, i), false)
		}
	}
	human := `{"stepId":"` + HumanStep + `","attempt":1,"kind":"human","input":{}}`
	switch sc.Legacy {
	case LegacyUnspent:
		b.add("EXECUTION_RESUMED", `{"stray":"legacy"}`, false)
		b.add("STEP_STARTED", human, false)
	case LegacyUnattributed:
		b.add("STEP_STARTED", human, false)
		b.add("EXECUTION_SUSPENDED", `{"on":"g-legacy"}`, false)
		b.add("EXECUTION_RESUMED", `{"a":"legacy"}`, false)
	}
	if sc.DiscardRecorded {
		b.add("DECISION_RECORDED", `{"id":"__loom_discard:`+HumanStep+`","choice":{"count":1}}`, true)
	}
	switch sc.Status {
	case fold.StatusRunning:
		b.add("STEP_STARTED", `{"stepId":"inflight","attempt":1,"input":{}}`, false)
	case fold.StatusSuspended:
		buildPark(b, sc)
	case fold.StatusCompleted:
		b.add("EXECUTION_COMPLETED", `{"output":1}`, false)
	case fold.StatusFailed:
		b.add("EXECUTION_FAILED", `{"error":"boom"}`, false)
	case fold.StatusCancelled:
		b.add("EXECUTION_CANCELLED", `{"reason":"operator"}`, false)
	case fold.StatusContinued:
		b.add("EXECUTION_CONTINUED", `{"continuedTo":"x2"}`, true)
	}
	return b.evs
}

func buildPark(b *logBuilder, sc Scenario) {
	if sc.FailedWhileParked {
		b.add("STEP_STARTED", `{"stepId":"sib","attempt":1,"input":{}}`, false)
	}
	switch sc.Gate {
	case fold.GateInDoubt:
		step := fmt.Sprintf(`{"stepId":%q,"attempt":%d}`, InDoubtStep, InDoubtAttempt)
		park := `{"on":"` + fold.GateInDoubt + `","condition":` + step + `}`
		b.add("STEP_STARTED", fmt.Sprintf(`{"stepId":%q,"attempt":%d,"input":{}}`, InDoubtStep, InDoubtAttempt), false)
		if sc.VerdictRecorded {
			b.add("EFFECT_INDOUBT", step, true)
			b.add("EXECUTION_SUSPENDED", park, false)
			b.add("DECISION_RECORDED", fmt.Sprintf(`{"id":"__loom_indoubt:%s#%d","choice":{"verdict":"not-applied"}}`, InDoubtStep, InDoubtAttempt), true)
			b.add("EXECUTION_RESUMED", `null`, false)
		}
		if sc.InDoubtFact {
			b.add("EFFECT_INDOUBT", step, true)
		}
		b.add("EXECUTION_SUSPENDED", park, false)
	case fold.GateDiverged:
		b.add("EXECUTION_SUSPENDED", `{"on":"`+fold.GateDiverged+`"}`, false)
	default:
		if sc.Timed {
			b.add("EXECUTION_SUSPENDED", fmt.Sprintf(`{"on":%q,"timeout":60000,"wakeAt":%d}`, sc.Gate, int64(WakeAt)), false)
		} else {
			b.add("EXECUTION_SUSPENDED", fmt.Sprintf(`{"on":%q}`, sc.Gate), false)
		}
	}
	if sc.FailedWhileParked {
		b.add("STEP_FAILED", `{"stepId":"sib","error":"sibling failed"}`, false)
	}
}
