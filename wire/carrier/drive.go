package carrier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Run is what driving a flow left behind: the execution's log and its folded state (canonical).
type Run struct {
	ExecutionID string
	Log         []spi.Envelope
	State       string
	// Driven are the runs of the executions the driver's drive actions drove (those continueAsNew
	// started), in action order.
	Driven []Run
	// Crashes are, for an in-process run (RunInProcessWith), the sequences its crash actions
	// failed at, in action order (-1: never fired).
	Crashes []int64
}

// Driver is a wire client's view of one execution it drives (the A3 contract from the client side).
type Driver struct {
	C           *Client
	ExecutionID string
	Token       string
	// Ended is the status the run ended in on the driver's last parked syscall: suspended, or
	// continued (continueAsNew).
	Ended string
}

// Syscall makes one syscall; parked reports that the run parked on it.
func (d *Driver) Syscall(ctx context.Context, name string, args json.RawMessage) (value json.RawMessage, parked bool, err error) {
	return d.SyscallAt(ctx, nil, name, args)
}

// SyscallAt makes one syscall in the parallel branch at path (nil = the flow's top, I-WIRE-11).
func (d *Driver) SyscallAt(ctx context.Context, path []int, name string, args json.RawMessage) (value json.RawMessage, parked bool, err error) {
	// members in the order json.Marshal gives a map of them
	p := struct {
		Args        json.RawMessage `json:"args"`
		Branch      []int           `json:"branch,omitempty"`
		Driver      string          `json:"driver"`
		ExecutionID string          `json:"executionId"`
	}{args, path, d.Token, d.ExecutionID}
	var res syscallResult
	err = d.C.Call(ctx, "syscall."+name, p, &res)
	if res.Parked {
		d.Ended = res.Status
	}
	return res.Value, res.Parked, err
}

// Attached is the answer of execution.start, resume and attach.
type Attached = startResult

// FailureOfRPC is a syscall's error answer as a flow script sees it (docs/wire.md, "Driving a
// flow script", I-WIRE-10): the same Failure flowscript.FailureOf gives in process, so a failure a
// script binds (onError "continue") or fails with folds identically over the wire.
func FailureOfRPC(e bridge.RPCError) *flowscript.Failure {
	var d struct {
		Kind    string          `json:"kind"`
		Channel string          `json:"channel"`
		Payload json.RawMessage `json:"payload"`
		Message *string         `json:"message"`
		StepID  string          `json:"stepId"`
		Timeout bool            `json:"timeout"`
	}
	_ = json.Unmarshal(e.Data, &d)
	switch {
	case e.Code == CodeTypedFailure:
		return &flowscript.Failure{Kind: "typed", Channel: d.Channel, Payload: d.Payload, Message: e.Message}
	case e.Code == CodeQuotaExceeded:
		return &flowscript.Failure{Kind: "quota", Message: e.Message}
	case e.Code == CodeStepFailed && d.Kind == "step-failed":
		m := e.Message
		if d.Message != nil {
			m = *d.Message
		}
		if d.Timeout {
			return &flowscript.Failure{Kind: "timeout", Message: m}
		}
		return &flowscript.Failure{Kind: "untyped", Message: m}
	case e.Code == CodeStepFailed && d.Kind == "step-cancelled":
		return &flowscript.Failure{Kind: "cancelled", Message: "step " + d.StepID + " cancelled"}
	case e.Code == CodeStepFailed && d.Kind == "decider":
		return &flowscript.Failure{Kind: "decider", Message: e.Message}
	}
	return &flowscript.Failure{Kind: "syscall", Message: e.Message}
}

// WireArgs are the wire arguments of a flow script's call: the interpreter's, except that a decide
// whose decider throws (fails: true) says so as the wire does, {"error": {"message"}} (I-WIRE-16).
func WireArgs(syscall string, args json.RawMessage) json.RawMessage {
	if syscall != "decide" {
		return args
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || m["fails"] == nil {
		return args
	}
	delete(m, "fails")
	m["error"] = mustJSON(map[string]string{"message": flowscript.DeciderThrows})
	return mustJSON(m)
}

// isFailure reports whether an error answer is a syscall's outcome the flow sees (a failure it may
// bind) rather than a refusal of the driver or a kernel fault (which ends the drive).
func isFailure(e bridge.RPCError) bool {
	switch e.Code {
	case CodeTypedFailure, CodeQuotaExceeded, CodeStepFailed:
		return true
	}
	return false
}

// errParked unwinds a scope whose syscall parked the run.
var errParked = errors.New("parked")

// driveScope runs a scope of a flow script over the wire: each call is a syscall, each answer is
// fed back to the script's machine. It returns the scope's output or failure, errParked when a
// syscall parked the run, or the error that ended the drive.
func driveScope(ctx context.Context, d *Driver, sc flowscript.Scope, path []int) (json.RawMessage, *flowscript.Failure, error) {
	m := flowscript.NewMachine(sc)
	for {
		a, err := m.Action()
		if err != nil {
			return nil, nil, err
		}
		var ans flowscript.Answer
		switch a.Kind {
		case flowscript.ActDone:
			return a.Output, nil, nil
		case flowscript.ActFail:
			return nil, a.Failure, nil
		case flowscript.ActParallel:
			var err error
			if ans, err = driveParallel(ctx, d, a, path); err != nil {
				return nil, nil, err
			}
		case flowscript.ActCall:
			v, parked, err := d.SyscallAt(ctx, path, a.Syscall, WireArgs(a.Syscall, a.Args))
			var ce *CallError
			switch {
			case parked:
				return nil, nil, errParked
			case errors.As(err, &ce) && isFailure(ce.RPC):
				ans.Failure = FailureOfRPC(ce.RPC)
			case err != nil:
				return nil, nil, fmt.Errorf("%s: %w", a.Path, err)
			default:
				ans.Value = v
			}
		}
		if err := m.Answer(ans); err != nil {
			return nil, nil, err
		}
	}
}

// driveParallel drives a parallel over the wire (I-WIRE-11): open its branches, drive each
// branch in branch order (the in-process interpreter's serial branches) and end it with its
// output or failure, then join: the answer is the array of outputs, or the first failing branch.
func driveParallel(ctx context.Context, d *Driver, a flowscript.Action, path []int) (flowscript.Answer, error) {
	open, _ := json.Marshal(map[string]int{"branches": len(a.Branches)})
	if _, parked, err := d.SyscallAt(ctx, path, "parallel", open); err != nil || parked {
		if parked {
			return flowscript.Answer{}, errParked
		}
		return flowscript.Answer{}, fmt.Errorf("%s: open: %w", a.Path, err)
	}
	fails := make([]*flowscript.Failure, len(a.Branches))
	for i, sc := range a.Branches {
		bp := append(append([]int{}, path...), i)
		out, f, err := driveScope(ctx, d, sc, bp)
		if err != nil {
			return flowscript.Answer{}, err
		}
		end := map[string]any{"output": payloadOr(out)}
		if f != nil {
			fails[i] = f
			end = map[string]any{"error": map[string]string{"message": f.Message}}
		}
		args, _ := json.Marshal(map[string]any{"end": end})
		if _, parked, err := d.SyscallAt(ctx, bp, "parallel", args); err != nil || parked {
			if parked {
				return flowscript.Answer{}, errParked
			}
			return flowscript.Answer{}, fmt.Errorf("%s.branches[%d]: end: %w", a.Path, i, err)
		}
	}
	v, parked, err := d.SyscallAt(ctx, path, "parallel", json.RawMessage(`{"join":true}`))
	var ce *CallError
	switch {
	case parked:
		return flowscript.Answer{}, errParked
	case errors.As(err, &ce) && ce.RPC.Code == CodeStepFailed:
		var bd struct {
			Kind   string `json:"kind"`
			Branch *int   `json:"branch"`
		}
		_ = json.Unmarshal(ce.RPC.Data, &bd)
		if bd.Kind == "branch" && bd.Branch != nil && *bd.Branch >= 0 && *bd.Branch < len(fails) {
			cause := fails[*bd.Branch]
			if cause == nil {
				cause = &flowscript.Failure{Kind: "syscall", Message: ce.RPC.Message}
			}
			return flowscript.Answer{Failure: &flowscript.Failure{Kind: "branch", Message: ce.RPC.Message, Branch: bd.Branch, Cause: cause}}, nil
		}
		return flowscript.Answer{Failure: FailureOfRPC(ce.RPC)}, nil
	case err != nil:
		return flowscript.Answer{}, fmt.Errorf("%s: join: %w", a.Path, err)
	}
	return flowscript.Answer{Value: v}, nil
}

func payloadOr(p json.RawMessage) json.RawMessage {
	if p == nil {
		return json.RawMessage("null")
	}
	return p
}

// complete ends the drive: execution.complete with the script's output, or its failure's message.
func complete(ctx context.Context, d *Driver, out json.RawMessage, fail *flowscript.Failure) error {
	p := map[string]any{"executionId": d.ExecutionID, "driver": d.Token}
	want := fold.StatusCompleted
	if fail != nil {
		p["error"] = map[string]string{"message": fail.Message}
		want = fold.StatusFailed
	} else {
		p["output"] = payloadOr(out)
	}
	var a Attached
	if err := d.C.Call(ctx, MethodComplete, p, &a); err != nil {
		return err
	}
	if a.Status != want {
		return fmt.Errorf("execution.complete: status %q, want %q", a.Status, want)
	}
	return nil
}

// State fetches the execution's folded state and log.
func State(ctx context.Context, c *Client, execID string) (Run, error) {
	var st StateResult
	if err := c.Call(ctx, MethodGetState, map[string]any{"executionId": execID, "includeLog": true}, &st); err != nil {
		return Run{}, err
	}
	return Run{ExecutionID: execID, Log: st.Log, State: st.Canonical}, nil
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// asCall returns the kernel's error answer in err.
func asCall(err error) (*CallError, bool) {
	var ce *CallError
	ok := errors.As(err, &ce)
	return ce, ok
}

// StepStarts counts a log's STEP_STARTED envelopes per step id: how often each step's effect was
// started (a served step is never started again).
func StepStarts(log []spi.Envelope) map[string]int {
	n := map[string]int{}
	for _, e := range log {
		if e.EventType == manifest.StepStarted {
			var p struct {
				StepID string `json:"stepId"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			n[p.StepID]++
		}
	}
	return n
}
