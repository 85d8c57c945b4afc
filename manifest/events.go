package manifest

// EventSchemaVersion is the version of the on-disk event schema (K5, spec §4).
const EventSchemaVersion = "1.26.0"

// Event type names the fold understands (spec §4; payload shapes in docs/events.md).
const (
	ExecutionStarted   = "EXECUTION_STARTED"
	ExecutionSuspended = "EXECUTION_SUSPENDED"
	ExecutionResumed   = "EXECUTION_RESUMED"
	ExecutionCompleted = "EXECUTION_COMPLETED"
	ExecutionFailed    = "EXECUTION_FAILED"
	ExecutionCancelled = "EXECUTION_CANCELLED"
	ExecutionMigrated  = "EXECUTION_MIGRATED"
	ExecutionRecovered = "EXECUTION_RECOVERED"
	ExecutionContinued = "EXECUTION_CONTINUED"
	StepStarted        = "STEP_STARTED"
	StepCompleted      = "STEP_COMPLETED"
	StepFailed         = "STEP_FAILED"
	StepRetrying       = "STEP_RETRYING"
	StepCancelled      = "STEP_CANCELLED"
	DecisionRecorded   = "DECISION_RECORDED"
	EffectInDoubt      = "EFFECT_INDOUBT"
	TimerFired         = "TIMER_FIRED"
	ApprovalGranted    = "APPROVAL_GRANTED"
	ResourceMetered    = "RESOURCE_METERED"
	QuotaExceeded      = "QUOTA_EXCEEDED"
	SafetyBlocked      = "SAFETY_BLOCKED"
	EgressDenied       = "EGRESS_DENIED"
	EffectDenied       = "EFFECT_DENIED"
	OutcomeRecorded    = "OUTCOME_RECORDED"
	ParallelCompleted  = "PARALLEL_COMPLETED"
	EventsRehomed      = "EVENTS_REHOMED"
	MessageConsumed    = "MESSAGE_CONSUMED"
	InboxQuarantined   = "INBOX_QUARANTINED"
	InboxReleased      = "INBOX_RELEASED"
)

// EventType is one entry of the event-type table.
type EventType struct {
	Name  string `json:"name"`
	Since string `json:"since"` // the EventSchemaVersion it arrived in
	// Level is "execution" for the status-moving kinds (spec §4; EXECUTION_CONTINUED only when
	// kernel-stamped, 1.23.0), "step" for STEP_*, else "fact".
	Level string `json:"level"`
}

// baseline is the version recorded for kinds whose arrival the spec does not date
// (docs/interpretations.md, I-MANIFEST-2).
const baseline = "1.0.0"

// EventTypes returns the full event-type table the fold understands (knownEventTypes, spec §4).
func EventTypes() []EventType {
	return []EventType{
		{ExecutionStarted, baseline, "execution"},
		{ExecutionSuspended, baseline, "execution"},
		{ExecutionResumed, baseline, "execution"},
		{ExecutionCompleted, baseline, "execution"},
		{ExecutionFailed, baseline, "execution"},
		{ExecutionCancelled, baseline, "execution"},
		{ExecutionMigrated, baseline, "fact"},
		{ExecutionRecovered, baseline, "fact"},
		{ExecutionContinued, "1.23.0", "execution"},
		{StepStarted, baseline, "step"},
		{StepCompleted, baseline, "step"},
		{StepFailed, baseline, "step"},
		{StepRetrying, baseline, "step"},
		{StepCancelled, baseline, "step"},
		{DecisionRecorded, baseline, "fact"},
		{EffectInDoubt, baseline, "fact"},
		{TimerFired, baseline, "fact"},
		{ApprovalGranted, baseline, "fact"},
		{ResourceMetered, baseline, "fact"},
		{QuotaExceeded, baseline, "fact"},
		{SafetyBlocked, baseline, "fact"},
		{EgressDenied, baseline, "fact"},
		{EffectDenied, baseline, "fact"},
		{OutcomeRecorded, baseline, "fact"},
		{ParallelCompleted, baseline, "fact"},
		{EventsRehomed, "1.22.0", "fact"},
		{MessageConsumed, "1.23.0", "fact"},
		{InboxQuarantined, "1.25.0", "fact"},
		{InboxReleased, "1.25.0", "fact"},
	}
}

// IsKernelEventType reports whether name is in the K5-governed set (the ingress gate refuses
// these as resume event types, spec §5).
func IsKernelEventType(name string) bool {
	for _, e := range EventTypes() {
		if e.Name == name {
			return true
		}
	}
	return false
}

// UserspaceEmittable lists the kernel types a userspace emit may still carry (spec §5, ADR 0104).
func UserspaceEmittable() []string {
	return []string{ResourceMetered, QuotaExceeded, SafetyBlocked, EgressDenied, EffectDenied, OutcomeRecorded, DecisionRecorded}
}
