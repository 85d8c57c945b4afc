package carrier

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"
	"github.com/loom-kernel/loom-conform/spi"
)

// Hooks are carrier-level defects; each one breaks one rule a certified kernel must keep. They
// exist so `certify kernel` can prove it rejects them (kits/kernelkit's broken kernels); a zero
// Hooks is a correct carrier.
type Hooks struct {
	// ForgedFactsThrough appends a userspace emit the kernel refused straight to the store (breaks
	// A26.wire.no-new-facts: a wire client forges kernel facts).
	ForgedFactsThrough bool
	// NoFencing hands a second driver a token while the first still drives (breaks
	// A26.wire.kernel-authoritative: two drivers interleave).
	NoFencing bool
	// DropResumeWithoutDriver answers a resume with no driver as accepted but records nothing
	// (breaks A26.wire.kernel-authoritative: the resume is lost).
	DropResumeWithoutDriver bool
	// IgnoreExecutionBudget starts an execution under the kernel's budget whatever budget
	// execution.start gives it (breaks I-WIRE-17).
	IgnoreExecutionBudget bool
	// DropMigratedInput migrates an execution with execution.resumeAs but drops the migrated input
	// it was given (breaks I-WIRE-15: the migrated input is not recorded).
	DropMigratedInput bool
	// DropDeliveredMessage records the message execution.deliver hands an execution as null
	// (breaks I-WIRE-20: the receive is answered with nothing).
	DropDeliveredMessage bool
	// HandshakeLies advertises a hand list: every syscall as unary (breaks A26.wire.derived and
	// A26.wire.partition).
	HandshakeLies bool
	// WireFollowsSchema states a wire ABI version one minor past the manifest's in the handshake,
	// as if the event-schema changes since 1.23.0 were a protocol change (breaks
	// S4.v1_24.wire-unchanged: 1.24.0 kept WIRE_ABI_VERSION; A26.wire.own-version).
	WireFollowsSchema bool
	// NoCancel serves no execution.cancel, one of the four execution methods ADR 0026 names, and
	// leaves it out of the handshake's method table (breaks A26.carrier.methods).
	NoCancel bool
	// AdoptsFlows re-registers, when the carrier is built, every flow the runtime already holds as
	// a flow wire clients may start, under the carrier's code identity: an in-process start then
	// records the carrier's codeHash, so a mounted carrier with no client changes in-process logs
	// (breaks A26.wire.unwired-identical, S1.G2.unwired-byte-identical).
	AdoptsFlows bool

	// UnfencedMethod names one driver method ("syscall.execute", …, "execution.complete") that
	// hands its call to the live run whatever token it carries (breaks I-WIRE-3).
	UnfencedMethod string
	// StaleTokenAccepted lets a token an earlier seat of the execution held drive it again
	// (breaks I-WIRE-3).
	StaleTokenAccepted bool
	// MissingDriverFenced answers a driver method without params.driver -32002 instead of -32602
	// (breaks I-WIRE-6: a missing member is bad params).
	MissingDriverFenced bool
	// ErrorCodes answers each error code of the map with its neighbour (breaks I-WIRE-1: each
	// refusal class has its code).
	ErrorCodes map[int]int
	// ResumeKernelTypes appends a resume whose event type is a kernel type (TIMER_FIRED aside)
	// straight to the log of a parked execution (breaks S5.ingress.kernel-namespace).
	ResumeKernelTypes bool
	// ResumeAsKernelTypes does the same for execution.resumeAs (breaks S5.resumeas.parked-all-rules).
	ResumeAsKernelTypes bool
	// AnyGateName answers a resume at a park whatever event type it names, as the parked gate
	// (breaks S5.ingress.gate-match).
	AnyGateName bool
	// TimerAnyWakeAt fires a TIMER_FIRED resume whatever wakeAt it names (breaks
	// S5.ingress.timer-needs-wakeat).
	TimerAnyWakeAt bool
	// ResumeWhileRunning records a resume that arrives while a driver runs the execution (breaks
	// S5.ingress.not-suspended).
	ResumeWhileRunning bool
	// ReattachForgets cuts a live run's record of answered calls on a reconnect at its first
	// failed call ("failed") or its first emit ("emit"), so the re-drive runs them again (breaks
	// I-WIRE-4).
	ReattachForgets string
	// ReplayCompletes appends the complete of a read-only replay of a finished ("finished") or
	// parked ("parked") execution whose output differs from the log's (breaks I-KERNEL-1).
	ReplayCompletes string
	// CancelTerminal appends EXECUTION_CANCELLED to an execution that ended with this status
	// (completed, failed or cancelled) (breaks I-KERNEL-23).
	CancelTerminal string
	// ResumeReopensTerminal records a resume of a completed, failed or cancelled execution (breaks
	// S5.ingress.suspended-only).
	ResumeReopensTerminal bool
	// BudgetLeaks gives every execution started without a budget the budget the previous
	// execution.start gave (breaks I-WIRE-17: a budget is one execution's).
	BudgetLeaks bool
	// ReservedIDs accepts a kernel-reserved (__loom_) id on one syscall: "decide" (the decision
	// id), "emit" (a DECISION_RECORDED id), "human" (a human step's id) or "suspend" (the gate).
	ReservedIDs string
	// ArgsToKernel hands syscall arguments to the kernel without holding them to their shape, so
	// a missing, null, ill-typed or empty member is answered by the kernel's decoder, -32026
	// (breaks I-WIRE-49: the shape of arguments is bad params).
	ArgsToKernel bool
	// DriverBeforeParams judges a driver method's token before its arguments' shape, so a call
	// with another token and bad arguments is answered -32002 (breaks I-WIRE-41).
	DriverBeforeParams bool
	// FieldWithParams names the member of a -32602 answer with a params. prefix
	// (breaks I-WIRE-48).
	FieldWithParams bool
	// CompleteBoth takes an execution.complete with both output and error as a failure, dropping
	// the output (breaks I-WIRE-44).
	CompleteBoth bool
	// ReplayCancelCompletes answers the complete of a read-only replay of a cancelled execution
	// with status cancelled, as if it matched (breaks I-WIRE-42).
	ReplayCancelCompletes bool
	// BareChunkError answers a stream chunk that is not a strict JSON value with the bare error,
	// no line of its own (breaks I-WIRE-51).
	BareChunkError bool
	// BusyScopeAsSyscall answers a call at a scope whose branches are open -32026 instead of
	// -32025 (breaks I-WIRE-52).
	BusyScopeAsSyscall bool
	// CrashNeedsLog refuses conformance.crash for an execution that has no log yet, -32003
	// (breaks I-WIRE-40).
	CrashNeedsLog bool
	// ParkInBranch answers the named parking syscall (suspend, sleep, sleepUntil, receive, select,
	// continueAsNew) inside a parallel branch with null: it neither refuses nor parks (breaks
	// S5.suspend.config, S5.timer.durable-wakeat, I-KERNEL-80 or I-KERNEL-81, as the syscall is).
	ParkInBranch string
	// DropBranchEmits answers an emit, stream or ui whose event type begins with this prefix, made
	// in a top-level parallel branch, with null and appends nothing (breaks S3.emit.serve-append:
	// an emit the log does not prove is appended).
	DropBranchEmits string
	// Slip names one defect an independent kernel slipped past certification (slips.go lists
	// them and the rule each breaks).
	Slip string
}

// prefixField is the FieldWithParams defect: data.field named as params.<path>.
func prefixField(e *bridge.RPCError) *bridge.RPCError {
	var d map[string]any
	if json.Unmarshal(e.Data, &d) != nil {
		return e
	}
	if f, ok := d["field"].(string); ok && f != "" {
		d["field"] = "params." + f
		e.Data = mustJSON(d)
	}
	return e
}

// forged is one envelope a defect writes past the kernel.
type forged struct {
	eventType string
	payload   json.RawMessage
}

// forge appends evs to the execution's log as they stand, past the kernel's rules: what a broken
// kernel does. It reports whether the store took them.
func (c *Carrier) forge(execID string, evs ...forged) bool {
	if c.store == nil {
		return false
	}
	ctx := context.Background()
	log, err := c.store.Read(ctx, execID)
	if err != nil || len(log) == 0 {
		return false
	}
	last := log[len(log)-1]
	var batch []spi.Envelope
	for i, f := range evs {
		p := f.payload
		if p == nil {
			p = json.RawMessage("null")
		}
		batch = append(batch, spi.Envelope{ID: newToken(), WorkflowID: last.WorkflowID, ExecutionID: execID, EventType: f.eventType,
			Sequence: last.Sequence + 1 + int64(i), Timestamp: last.Timestamp, Payload: p})
	}
	return c.store.Append(ctx, execID, batch, spi.AppendOptions{}) == nil
}

// forgeThrough is the ForgedFactsThrough defect: an emit the kernel refused, or one carrying
// envelope fields, is appended to the store as the client sent it.
func (c *Carrier) forgeThrough(execID string, args json.RawMessage, refused error) bool {
	var er *userspace.EmitRefusedError
	if c.store == nil {
		return false
	}
	if refused != nil && !errors.As(refused, &er) {
		return false
	}
	var a struct {
		EventType string          `json:"eventType"`
		Payload   json.RawMessage `json:"payload"`
		Metadata  json.RawMessage `json:"metadata"`
	}
	if json.Unmarshal(args, &a) != nil || a.EventType == "" {
		return false
	}
	ctx := context.Background()
	evs, err := c.store.Read(ctx, execID)
	if err != nil || len(evs) == 0 {
		return false
	}
	last := evs[len(evs)-1]
	env := spi.Envelope{ID: newToken(), WorkflowID: last.WorkflowID, ExecutionID: execID, EventType: a.EventType,
		Sequence: last.Sequence + 1, Timestamp: last.Timestamp, Payload: a.Payload, Metadata: a.Metadata}
	if env.Payload == nil {
		env.Payload = json.RawMessage("null")
	}
	return c.store.Append(ctx, execID, []spi.Envelope{env}, spi.AppendOptions{}) == nil
}

// resumeDefect answers a resume the way a broken kernel does (ResumeKernelTypes, AnyGateName,
// TimerAnyWakeAt, ResumeWhileRunning, ResumeReopensTerminal): done reports that it answered, and
// eventType and payload are what the kernel is then asked to resume with.
func (c *Carrier) resumeDefect(ctx context.Context, execID, eventType string, payload json.RawMessage, live bool) (res any, done bool, et string, pl json.RawMessage) {
	h := c.opts.Hooks
	et, pl = eventType, payload
	accepted := startResult{ExecutionID: execID, Status: fold.StatusRunning, AwaitingDriver: true}
	forgeResume := func() (any, bool, string, json.RawMessage) {
		if c.forge(execID, forged{eventType, payload}, forged{manifest.ExecutionResumed, payload}) {
			return accepted, true, et, pl
		}
		return nil, false, et, pl
	}
	if live {
		if h.ResumeWhileRunning {
			return forgeResume()
		}
		return nil, false, et, pl
	}
	st, err := c.rt.State(ctx, execID)
	if err != nil {
		return nil, false, et, pl
	}
	switch st.Status {
	case fold.StatusCompleted, fold.StatusFailed, fold.StatusCancelled:
		if h.ResumeReopensTerminal {
			return forgeResume()
		}
	case fold.StatusSuspended:
		var on struct {
			On     string `json:"on"`
			WakeAt *int64 `json:"wakeAt"`
		}
		_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
		kernelType := manifest.IsKernelEventType(eventType) && eventType != manifest.TimerFired
		switch {
		case h.ResumeKernelTypes && kernelType:
			return forgeResume()
		case h.AnyGateName && !kernelType && !strings.HasPrefix(eventType, "__loom_") && eventType != on.On && eventType != manifest.TimerFired:
			et = on.On
		case h.TimerAnyWakeAt && eventType == manifest.TimerFired && on.WakeAt != nil:
			pl = mustJSON(map[string]int64{"wakeAt": *on.WakeAt})
		}
	}
	return nil, false, et, pl
}

// syscallDefect answers a syscall the way a broken kernel does (ReservedIDs, ParkInBranch,
// DropBranchEmits): done reports that it answered, args are what the kernel is then asked.
func (c *Carrier) syscallDefect(execID, name string, args json.RawMessage, branch []int) (res any, done bool, out json.RawMessage) {
	h := c.opts.Hooks
	out = c.slipArgs(name, args)
	null := syscallResult{Value: json.RawMessage("null")}
	if h.ParkInBranch == name && len(branch) > 0 {
		return null, true, out
	}
	if p := h.DropBranchEmits; p != "" && len(branch) == 1 && (name == "emit" || name == "stream" || name == "ui") {
		var e struct {
			EventType string `json:"eventType"`
		}
		if json.Unmarshal(args, &e) == nil && strings.HasPrefix(e.EventType, p) {
			return null, true, out
		}
	}
	if h.ReservedIDs == "" {
		return nil, false, out
	}
	var a struct {
		ID        string          `json:"id"`
		Choice    json.RawMessage `json:"choice"`
		On        string          `json:"on"`
		EventType string          `json:"eventType"`
		Payload   struct {
			ID string `json:"id"`
		} `json:"payload"`
		Task map[string]json.RawMessage `json:"task"`
	}
	_ = json.Unmarshal(args, &a)
	reserved := func(s string) bool { return strings.HasPrefix(s, "__loom_") }
	switch {
	case h.ReservedIDs == "decide" && name == "decide" && reserved(a.ID):
		if c.forge(execID, forged{manifest.DecisionRecorded, mustJSON(map[string]json.RawMessage{"id": mustJSON(a.ID), "choice": payloadOr(a.Choice)})}) {
			return syscallResult{Value: payloadOr(a.Choice)}, true, out
		}
	case h.ReservedIDs == "emit" && name == "emit" && a.EventType == manifest.DecisionRecorded && reserved(a.Payload.ID):
		var p struct {
			Payload json.RawMessage `json:"payload"`
		}
		_ = json.Unmarshal(args, &p)
		if c.forge(execID, forged{manifest.DecisionRecorded, p.Payload}) {
			return null, true, out
		}
	case h.ReservedIDs == "suspend" && name == "suspend" && (reserved(a.On) || manifest.IsKernelEventType(a.On) && a.On != manifest.TimerFired):
		return null, true, out
	case h.ReservedIDs == "human" && name == "execute" && a.Task != nil && string(a.Task["kind"]) == `"human"`:
		var id string
		_ = json.Unmarshal(a.Task["id"], &id)
		if reserved(id) {
			var m map[string]json.RawMessage
			_ = json.Unmarshal(args, &m)
			delete(a.Task, "kind")
			m["task"] = mustJSON(a.Task)
			out = mustJSON(m)
		}
	}
	return nil, false, out
}
