package ingress

import (
	"context"
	"encoding/json"
)

// Request is one resume attempt as the caller sent it (spec §5). Three shapes:
//
//   - resume: EventType is the event the caller delivers (normally the gate's name) and Payload its
//     answer; As is nil.
//   - recover: EventType is manifest.ExecutionRecovered and As is nil — the one non-gate resume, a
//     dispatcher re-driving a crashed execution.
//   - resumeAs: As is set (the target flow). EventType/Payload are the optional event; onto a parked
//     execution they are the gate's answer and are required.
type Request struct {
	// ExecutionID is handed to the authenticator and authorizer; the rules do not read it.
	ExecutionID string
	// EventType is the caller-supplied event type. Required except for resumeAs.
	EventType string
	// Payload is the caller's payload exactly as sent; nil means JSON null.
	Payload json.RawMessage
	// DiscardLegacyAnswers is the operator override for an ambiguous pre-0104 log (spec §5). It is
	// honoured only when an authenticator verified the event, never on EXECUTION_RECOVERED or
	// TIMER_FIRED, and only when the log is in fact ambiguous for that step.
	DiscardLegacyAnswers *DiscardLegacyAnswers
	// As, when set, makes this a resumeAs onto the target flow (K11.3).
	As *ResumeAs
}

// DiscardLegacyAnswers names the open human step whose answer is ambiguous and how many legacy
// _resumePayloads entries the runtime is to skip before serving it.
type DiscardLegacyAnswers struct {
	StepID string `json:"stepId"`
	Count  int    `json:"count"`
}

// ResumeAs is the target of a resumeAs: the flow the execution moves onto.
type ResumeAs struct {
	FlowID   string
	FlowHash string // recorded as EXECUTION_MIGRATED.toFlowHash when not empty
	CodeHash string // recorded as EXECUTION_MIGRATED.toCodeHash when not empty
	// ResumeSchemas is the TARGET flow's shape gate (spec §5: resumeAs validates against the
	// target flow's map); Options.ResumeSchemas is not consulted for a resumeAs.
	ResumeSchemas map[string]Parser
	// Transform, when set, maps the execution's current _input to the migrated input (K11.5). Its
	// result is recorded as EXECUTION_MIGRATED.migratedInput; an error refuses the resumeAs
	// (ReasonTransformFailed) with nothing appended.
	Transform func(input json.RawMessage) (json.RawMessage, error)
}

// Parser is one resumeSchemas entry: it parses a gate's payload and returns the PARSED value
// (defaults and transforms applied), which is what gets recorded, or an error, which refuses the
// resume with a *ResumePayloadValidationError.
type Parser func(payload json.RawMessage) (json.RawMessage, error)

// ResumeEvent is what the authenticator sees: exactly the event the caller signed (the raw
// payload, before any shape gate), plus the discard override it carries.
type ResumeEvent struct {
	ExecutionID          string
	EventType            string
	Payload              json.RawMessage // as sent; nil means null
	DiscardLegacyAnswers *DiscardLegacyAnswers
	ResumeAs             bool   // true for a resumeAs onto a parked execution
	TargetFlowID         string // the resumeAs target's FlowID
}

// Approval is an authenticator's positive verdict; it is recorded as APPROVAL_GRANTED {eventType, by}.
type Approval struct {
	By string // who resumed; "" leaves by out of the payload
}

// ResumeAuthenticator authenticates who may resume (K12, spec §5). An error rejects the resume:
// *ResumeRefusedError with ReasonAuthenticatorRejected, nothing appended. A successful
// Authenticate of an event that carries DiscardLegacyAnswers is what "the authenticator verifies
// that event" means.
type ResumeAuthenticator interface {
	Authenticate(ctx context.Context, ev ResumeEvent) (Approval, error)
}

// AuthenticatorFunc adapts a function to ResumeAuthenticator.
type AuthenticatorFunc func(ctx context.Context, ev ResumeEvent) (Approval, error)

// Authenticate calls f.
func (f AuthenticatorFunc) Authenticate(ctx context.Context, ev ResumeEvent) (Approval, error) {
	return f(ctx, ev)
}

// AuthorizeRequest is what the execution authorizer sees: the event and, when an authenticator
// ran, whom it authenticated.
type AuthorizeRequest struct {
	ExecutionID   string
	EventType     string
	Authenticated bool
	By            string
	ResumeAs      bool
}

// Authorizer is the execution authorizer: it decides whether the (authenticated) caller may
// resume this execution. An error refuses with ReasonUnauthorized, nothing appended. It runs right
// after the authenticator and before the ingress rules.
type Authorizer interface {
	Authorize(ctx context.Context, r AuthorizeRequest) error
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, r AuthorizeRequest) error

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, r AuthorizeRequest) error { return f(ctx, r) }

// Options are the optional capabilities of the gate. The zero value wires none of them, and then
// a plan holds exactly what a gate without them would append (G2).
type Options struct {
	Authenticator ResumeAuthenticator
	Authorizer    Authorizer
	// ResumeSchemas is the flow's shape gate, keyed by gate name (the resume's event type).
	ResumeSchemas map[string]Parser
}
