package ingress

import (
	"fmt"
)

// Refusal reasons of *ResumeRefusedError. They are stable strings: callers and logs match on them.
const (
	// ReasonAuthenticatorRejected: the ResumeAuthenticator rejected the event.
	ReasonAuthenticatorRejected = "authenticator-rejected"
	// ReasonUnauthorized: the execution authorizer refused the caller.
	ReasonUnauthorized = "unauthorized"
	// ReasonKernelNamespace: the event type is a kernel event type (TIMER_FIRED excepted).
	ReasonKernelNamespace = "kernel-namespace"
	// ReasonTerminal: the execution is completed, failed, cancelled or continued.
	ReasonTerminal = "terminal"
	// ReasonNotSuspended: the execution is still running (or pending); retry once it is parked.
	ReasonNotSuspended = "not-suspended"
	// ReasonGateMismatch: the event type is not the gate the execution is parked on.
	ReasonGateMismatch = "gate-mismatch"
	// ReasonTimerWithoutWakeAt: TIMER_FIRED for a park that recorded no wakeAt.
	ReasonTimerWithoutWakeAt = "timer-without-wakeat"
	// ReasonTimerMismatch: TIMER_FIRED naming a wakeAt other than the recorded one (a stale timer).
	ReasonTimerMismatch = "timer-mismatch"
	// ReasonRecoveredNotRunning: EXECUTION_RECOVERED on a parked or terminal execution.
	ReasonRecoveredNotRunning = "recovered-not-running"
	// ReasonNullAfterParkedFailure: a null gate answer while _failedWhileParked is set.
	ReasonNullAfterParkedFailure = "null-answer-after-parked-failure"
	// ReasonAmbiguousLegacy: a pre-0104 log where an open human step's answer cannot be told apart
	// from another entry, and no verified discardLegacyAnswers resolves it.
	ReasonAmbiguousLegacy = "ambiguous-legacy-answers"
	// ReasonDiscardNotApplicable: discardLegacyAnswers where nothing is ambiguous, or on a request
	// that can never carry it.
	ReasonDiscardNotApplicable = "discard-not-applicable"
	// ReasonTransformFailed: a resumeAs state transform failed.
	ReasonTransformFailed = "transform-failed"
)

// Reasons lists every refusal reason.
func Reasons() []string {
	return []string{
		ReasonAuthenticatorRejected, ReasonUnauthorized, ReasonKernelNamespace, ReasonTerminal,
		ReasonNotSuspended, ReasonGateMismatch, ReasonTimerWithoutWakeAt, ReasonTimerMismatch,
		ReasonRecoveredNotRunning, ReasonNullAfterParkedFailure, ReasonAmbiguousLegacy,
		ReasonDiscardNotApplicable, ReasonTransformFailed,
	}
}

// ResumeRefusedError is an ingress refusal (spec §5). Nothing may be appended for it.
type ResumeRefusedError struct {
	Reason    string // one of the Reason constants
	EventType string // the caller's event type
	// Gate is the parked gate. It is set only on a gate-mismatch refusal to an authenticated caller:
	// an unauthenticated caller has no business learning the gate's name (spec §5).
	Gate   string
	Detail string // one line for humans; never names the gate unless Gate is set
	Err    error  // the authenticator's, authorizer's or transform's error
}

func (e *ResumeRefusedError) Error() string {
	s := fmt.Sprintf("resume refused (%s): event type %q", e.Reason, e.EventType)
	if e.Gate != "" {
		s += fmt.Sprintf(", parked on gate %q", e.Gate)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ResumeRefusedError) Unwrap() error { return e.Err }

// ResumePayloadValidationError refuses a payload: the resumeSchemas parser rejected it, a parser
// or transform returned no JSON value, or a resume at an in-doubt park is not a verdict for the
// parked step and attempt. Nothing may be appended; the execution stays parked and resumable.
type ResumePayloadValidationError struct {
	EventType string
	Detail    string
	Err       error // the parser's error, when it was one
}

func (e *ResumePayloadValidationError) Error() string {
	s := fmt.Sprintf("resume payload refused: event type %q", e.EventType)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ResumePayloadValidationError) Unwrap() error { return e.Err }

// InputError reports a misuse of the gate — facts that do not belong to the state, an empty event
// type, a payload that is not JSON. It is a caller bug, not a refusal.
type InputError struct {
	Field  string
	Detail string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("ingress: bad input %s: %s", e.Field, e.Detail)
}

func refuse(reason, eventType, detail string) *ResumeRefusedError {
	return &ResumeRefusedError{Reason: reason, EventType: eventType, Detail: detail}
}

func invalid(eventType, detail string, err error) *ResumePayloadValidationError {
	return &ResumePayloadValidationError{EventType: eventType, Detail: detail, Err: err}
}
