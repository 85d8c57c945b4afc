package ingress

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/spi"
)

// Kind says what an accepted request does.
type Kind string

const (
	// KindAnswer: a resume answers the parked gate; its EXECUTION_RESUMED adds one _resumePayloads entry.
	KindAnswer Kind = "answer"
	// KindVerdict: an in-doubt verdict, recorded as a kernel DECISION_RECORDED beside a null
	// EXECUTION_RESUMED (no entry).
	KindVerdict Kind = "verdict"
	// KindRelease: the reserved divergence gate released by a null resume (status only, no entry).
	KindRelease Kind = "release"
	// KindRecover: EXECUTION_RECOVERED on a running or pending execution; no EXECUTION_RESUMED.
	KindRecover Kind = "recover"
	// KindMigrate: resumeAs onto a crashed (running or pending) execution; no EXECUTION_RESUMED.
	KindMigrate Kind = "migrate"
	// KindReopen: resumeAs onto a terminal execution; EXECUTION_RESUMED with a null payload.
	KindReopen Kind = "reopen"
)

// Append is one envelope to append, without the store-assigned fields (id, sequence, timestamp).
// Metadata is nil or a JSON object.
type Append struct {
	EventType string
	Payload   json.RawMessage
	Metadata  json.RawMessage
}

// Plan is the gate's positive verdict: exactly the envelopes to append, in order. The runtime
// appends them as one atomic batch (a torn plan would leave, e.g., an approval without its
// answer). A refusal never comes with a plan.
type Plan struct {
	Kind    Kind
	Appends []Append
	// Answers is true when the plan's EXECUTION_RESUMED answers a suspend point, i.e. adds exactly
	// one _resumePayloads entry.
	Answers bool
	// Answer is the recorded answer (the PARSED value when a shape gate ran); nil when none.
	Answer json.RawMessage
	// Approval is the authenticator's verdict, when one ran.
	Approval *Approval
	// MigratedInput is the transform's result of a resumeAs, when a transform ran.
	MigratedInput json.RawMessage
}

// Types returns the plan's event types in order.
func (p Plan) Types() []string {
	out := make([]string, len(p.Appends))
	for i, a := range p.Appends {
		out[i] = a.EventType
	}
	return out
}

// Envelopes turns the plan into envelopes continuing a log whose last sequence is lastSeq, all
// stamped with timestamp ts; id(i) names the i-th envelope.
func (p Plan) Envelopes(workflowID, executionID string, lastSeq, ts int64, id func(i int) string) []spi.Envelope {
	out := make([]spi.Envelope, len(p.Appends))
	for i, a := range p.Appends {
		out[i] = spi.Envelope{
			ID:          id(i),
			WorkflowID:  workflowID,
			ExecutionID: executionID,
			EventType:   a.EventType,
			Sequence:    lastSeq + 1 + int64(i),
			Timestamp:   ts,
			Payload:     a.Payload,
			Metadata:    a.Metadata,
		}
	}
	return out
}
