package fold

import (
	"encoding/json"
	"maps"
)

// Execution statuses (DESIGN §3.2, spec §2; continued since 1.23.0).
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusSuspended = "suspended"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
	StatusContinued = "continued"
)

// Frame statuses.
const (
	FrameRunning   = "running"
	FrameRetrying  = "retrying"
	FrameCompleted = "completed"
	FrameFailed    = "failed"
	FrameCancelled = "cancelled"
)

// Reserved gates whose null resume answers no suspend point (spec §4 1.20.0, 1.23.0).
const (
	GateInDoubt  = "__loom_indoubt__" // our name for the in-doubt park (docs/interpretations.md, I-FOLD-3)
	GateDiverged = "__loom_diverged__"
)

// MaxQuarantined bounds each topic's _quarantined queue (spec §4, 1.25.0).
const MaxQuarantined = 1024

// State is the folded ExecutionState (spec §2, DESIGN §3.2). Its JSON form (MarshalJSON) is
// canonical, so two states are equal iff their JSON bytes are equal. JSON values inside it are
// kept as raw JSON texts (json.RawMessage), which the fold shares with the events it read and
// never writes to: treat every State as immutable and fold again to change it.
type State struct {
	Status    string
	Frames    map[string]Frame // keyed by stepId
	Variables Variables
	Sequence  int64 // of the last envelope folded; -1 for none
	StartedAt NullInt
	UpdatedAt NullInt
}

// NullInt is an integer that may be JSON null.
type NullInt struct {
	Int   int64
	Valid bool
}

// Frame is the per-step lifecycle (spec §2 ExecutionFrame). A nil RawMessage is an absent key.
type Frame struct {
	StepID       string
	Status       string
	Attempt      json.RawMessage
	Input        json.RawMessage // only while the frame is open (1.26.0)
	Output       json.RawMessage
	Error        json.RawMessage
	ErrorChannel json.RawMessage // typed failure (1.17.0)
	ErrorPayload json.RawMessage
	// Extra keeps members a snapshot carried that this fold does not write, verbatim.
	Extra map[string]json.RawMessage
}

// Decision is one _decisions entry (1.18.0, 1.23.0, 1.24.0).
type Decision struct {
	Choice     json.RawMessage
	Seq        int64 // the envelope sequence of the first record of the id, when HasSeq
	HasSeq     bool
	Context    json.RawMessage
	Policy     json.RawMessage
	InnerSteps json.RawMessage
	Extra      map[string]json.RawMessage
}

// QuarantineEntry is one entry of a topic's _quarantined queue (1.25.0): the queue has the shape
// released? held* — at most one released entry, at its head.
type QuarantineEntry struct {
	MessageID string
	Released  bool
	Message   json.RawMessage
}

// InboxCursor is the _inbox record of one topic (1.23.0): how many messages were consumed and the
// id of the last one (docs/interpretations.md, I-FOLD-8).
type InboxCursor struct {
	Count int64
	Last  string
}

// Variables holds user variables and the reserved keys of DESIGN §3.2. The typed fields are the
// reserved keys the fold updates incrementally; nil means absent. Values holds every other key —
// user variables and the reserved keys the fold only replaces or removes (_input, _output, _error,
// _suspendedOn, _failedWhileParked, _continuedTo, _principal, _parent, _chain, _codeHash, _waits).
type Variables struct {
	Values          map[string]json.RawMessage
	ResumePayloads  []json.RawMessage            // _resumePayloads (1.16.0)
	FlowEmits       map[string]int64             // _flowEmits (1.19.0)
	Decisions       map[string]Decision          // _decisions
	Lifecycle       []json.RawMessage            // _lifecycle (1.22.0)
	Outcomes        []json.RawMessage            // _outcomes (I-FOLD-9)
	Inbox           map[string]InboxCursor       // _inbox (1.23.0)
	WaitAnswers     map[string]json.RawMessage   // _waitAnswers (1.23.0)
	Scopes          map[string]json.RawMessage   // _scopes (1.23.0)
	Resources       map[string]float64           // _resources: dimension -> total (spec §8)
	ResourcesCustom map[string]float64           // _resources.custom (1.23.0)
	Quarantined     map[string][]QuarantineEntry // _quarantined (1.25.0)
}

// Reserved variable names.
const (
	VarInput             = "_input"
	VarOutput            = "_output"
	VarError             = "_error"
	VarSuspendedOn       = "_suspendedOn"
	VarResumePayloads    = "_resumePayloads"
	VarFlowEmits         = "_flowEmits"
	VarDecisions         = "_decisions"
	VarFailedWhileParked = "_failedWhileParked"
	VarLifecycle         = "_lifecycle"
	VarContinuedTo       = "_continuedTo"
	VarInbox             = "_inbox"
	VarWaitAnswers       = "_waitAnswers"
	VarWaits             = "_waits"
	VarScopes            = "_scopes"
	VarPrincipal         = "_principal"
	VarParent            = "_parent"
	VarChain             = "_chain"
	VarCodeHash          = "_codeHash"
	VarResources         = "_resources"
	VarQuarantined       = "_quarantined"
)

// Empty returns the state of an empty log.
func Empty() State {
	return State{Status: StatusPending, Sequence: -1}
}

// clone returns a copy whose containers the caller may mutate without touching s (the pass
// boundary of copy-on-write). Raw JSON values are shared: they are never written. Append-only
// lists are shared with their capacity clipped, so an append copies (structural sharing).
func (s State) clone() State {
	out := s
	out.Frames = maps.Clone(s.Frames)
	v := &out.Variables
	v.Values = maps.Clone(s.Variables.Values)
	v.ResumePayloads = clip(s.Variables.ResumePayloads)
	v.FlowEmits = maps.Clone(s.Variables.FlowEmits)
	v.Decisions = maps.Clone(s.Variables.Decisions)
	v.Lifecycle = clip(s.Variables.Lifecycle)
	v.Inbox = maps.Clone(s.Variables.Inbox)
	v.WaitAnswers = maps.Clone(s.Variables.WaitAnswers)
	v.Scopes = maps.Clone(s.Variables.Scopes)
	v.Resources = maps.Clone(s.Variables.Resources)
	v.ResourcesCustom = maps.Clone(s.Variables.ResourcesCustom)
	if s.Variables.Quarantined != nil {
		v.Quarantined = make(map[string][]QuarantineEntry, len(s.Variables.Quarantined))
		for k, q := range s.Variables.Quarantined {
			v.Quarantined[k] = clip(q)
		}
	}
	return out
}

func clip[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return s[:len(s):len(s)]
}
