package userspace

import "fmt"

// Refusal reasons of *EmitRefusedError (stable strings).
const (
	// ReasonKernelType: a kernel event type other than the seven a userspace emit may carry.
	ReasonKernelType = "kernel-type"
	// ReasonRelayKernelType: an isolated tool's relay forwarding any kernel event type.
	ReasonRelayKernelType = "relay-kernel-type"
	// ReasonNoJSONForm: an allowed kernel type whose payload has no JSON form.
	ReasonNoJSONForm = "no-json-form"
	// ReasonMeteredInvalid: a RESOURCE_METERED field not finite, negative, over MaxMetered, or unknown.
	ReasonMeteredInvalid = "metered-invalid"
	// ReasonQuotaReasonInvalid: QUOTA_EXCEEDED.reason missing, not a string, empty or over MaxQuotaReason.
	ReasonQuotaReasonInvalid = "quota-reason-invalid"
	// ReasonDecisionInvalid: a DECISION_RECORDED without a string id or a choice, or with innerSteps.
	ReasonDecisionInvalid = "decision-invalid"
	// ReasonReservedDecisionID: a decision id beginning __loom_.
	ReasonReservedDecisionID = "reserved-decision-id"
	// ReasonChoiceChanged: a DECISION_RECORDED that would change an already-recorded choice.
	ReasonChoiceChanged = "decision-choice-changed"
)

// EmitRefusedError refuses a userspace emit (spec §5). Nothing may be appended for it.
type EmitRefusedError struct {
	EventType string
	Reason    string
	Detail    string
}

func (e *EmitRefusedError) Error() string {
	return fmt.Sprintf("emit %q refused (%s): %s", e.EventType, e.Reason, e.Detail)
}

// InputError is a misuse of Check (a caller bug), not a refusal.
type InputError struct{ Field, Detail string }

func (e *InputError) Error() string {
	return fmt.Sprintf("userspace: bad input %s: %s", e.Field, e.Detail)
}

func refuse(et, reason, detail string) *EmitRefusedError {
	return &EmitRefusedError{EventType: et, Reason: reason, Detail: detail}
}
