package carrier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Run is what driving a flow left behind: the execution's log and its folded state (canonical).
type Run struct {
	ExecutionID string
	Log         []spi.Envelope
	State       string
}

// Driver is a wire client's view of one execution it drives (the A3 contract from the client side).
type Driver struct {
	C           *Client
	ExecutionID string
	Token       string
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
			v, parked, err := d.SyscallAt(ctx, path, a.Syscall, a.Args)
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

// StartInput is the input of a driver's start action (null when it has none).
func StartInput(d *flowscript.Driver) json.RawMessage {
	if len(d.Actions) > 0 && d.Actions[0].Input != nil {
		return d.Actions[0].Input
	}
	return json.RawMessage("null")
}

// DriveWire drives flow script s with driver d as execution execID over the wire, the way
// docs/wire.md tells a client to: start with the start action's input, step the script's machine
// making each call a syscall; on a park, take the driver's next action (a resume), resume with
// attach and re-drive from the top (the kernel serves what the log answers); complete with the
// script's output or failure. Then it replays the execution read-only (attach, re-drive, complete:
// nothing may be appended). It returns the log and folded state the kernel holds.
func DriveWire(ctx context.Context, c *Client, execID string, s *flowscript.Script, d *flowscript.Driver) (Run, error) {
	if len(d.Actions) == 0 || d.Actions[0].Do != "start" {
		return Run{}, errors.New("driver: the first action must be start")
	}
	input := StartInput(d)
	var a Attached
	if err := c.Call(ctx, MethodStart, map[string]any{"flowId": s.ID, "executionId": execID, "input": input}, &a); err != nil {
		return Run{}, err
	}
	dr := &Driver{C: c, ExecutionID: execID, Token: a.Driver}
	next := 1
	for {
		out, fail, err := driveScope(ctx, dr, flowscript.TopScope(s, input), nil)
		if errors.Is(err, errParked) {
			if next >= len(d.Actions) || d.Actions[next].Do != "resume" {
				return Run{}, fmt.Errorf("the run parked and the driver has no resume left (actions[%d])", next)
			}
			r := d.Actions[next]
			next++
			var ra Attached
			for {
				err := c.Call(ctx, MethodResume, map[string]any{"executionId": execID, "eventType": r.EventType, "payload": payloadOr(r.Payload), "attach": true}, &ra)
				var ce *CallError
				if errors.As(err, &ce) && ce.RPC.Code == CodeRefused && next < len(d.Actions) && d.Actions[next].Do == "resume" {
					r = d.Actions[next] // refused (recorded as RESUME_REFUSED): the run stays parked
					next++
					continue
				}
				if err != nil {
					return Run{}, fmt.Errorf("actions[%d] resume: %w", next-1, err)
				}
				break
			}
			dr.Token = ra.Driver
			continue // re-drive from the top
		}
		if err != nil {
			return Run{}, err
		}
		if err := complete(ctx, dr, out, fail); err != nil {
			return Run{}, err
		}
		break
	}
	if next < len(d.Actions) {
		return Run{}, fmt.Errorf("the run ended before the driver's actions[%d] (%s)", next, d.Actions[next].Do)
	}
	before, err := State(ctx, c, execID)
	if err != nil {
		return Run{}, err
	}
	// replay: attach to the ended execution and re-drive it; the kernel serves every answer.
	if err := c.Call(ctx, MethodAttach, map[string]any{"executionId": execID}, &a); err != nil {
		return Run{}, fmt.Errorf("replay: %w", err)
	}
	dr.Token = a.Driver
	out, fail, err := driveScope(ctx, dr, flowscript.TopScope(s, input), nil)
	if errors.Is(err, errParked) {
		return Run{}, errors.New("replay: a syscall parked a finished execution")
	}
	if err != nil {
		return Run{}, fmt.Errorf("replay: %w", err)
	}
	if err := complete(ctx, dr, out, fail); err != nil {
		return Run{}, fmt.Errorf("replay: %w", err)
	}
	after, err := State(ctx, c, execID)
	if err != nil {
		return Run{}, err
	}
	if len(after.Log) != len(before.Log) || after.State != before.State {
		return Run{}, fmt.Errorf("replay appended: the log went from %d to %d envelopes", len(before.Log), len(after.Log))
	}
	return after, nil
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
	var st stateResult
	if err := c.Call(ctx, MethodGetState, map[string]any{"executionId": execID, "includeLog": true}, &st); err != nil {
		return Run{}, err
	}
	return Run{ExecutionID: execID, Log: st.Log, State: st.Canonical}, nil
}

// RunInProcess runs flow script s with driver d as execution execID on rt in process (the
// flow-script interpreter, branches serial): started, resumed by the driver's resumes while it
// parks, then replayed read-only. It is the reference a wire run is compared with.
func RunInProcess(ctx context.Context, rt *kernel.Runtime, store spi.EventStore, execID string, s *flowscript.Script, d *flowscript.Driver) (Run, error) {
	if len(d.Actions) == 0 || d.Actions[0].Do != "start" {
		return Run{}, errors.New("driver: the first action must be start")
	}
	def := flowscript.Def(s, flowscript.Options{SerialBranches: true})
	def.CodeHash = "" // a wire flow's code is its driver: execution.start records no code hash
	if err := rt.Register(def); err != nil {
		return Run{}, err
	}
	res, err := rt.Start(ctx, s.ID, execID, StartInput(d))
	if err != nil {
		return Run{}, err
	}
	next := 1
	for res.Status == fold.StatusSuspended && next < len(d.Actions) && d.Actions[next].Do == "resume" {
		r := d.Actions[next]
		next++
		rr, err := rt.Resume(ctx, execID, r.EventType, payloadOr(r.Payload))
		var refused *ingress.ResumeRefusedError
		var invalid *ingress.ResumePayloadValidationError
		if errors.As(err, &refused) || errors.As(err, &invalid) {
			continue // recorded as RESUME_REFUSED: the run stays parked
		}
		if err != nil {
			return Run{}, fmt.Errorf("actions[%d] resume: %w", next-1, err)
		}
		res = rr
	}
	if res.Status == fold.StatusSuspended {
		return Run{}, fmt.Errorf("the run parked and the driver has no resume left (actions[%d])", next)
	}
	if next < len(d.Actions) {
		return Run{}, fmt.Errorf("the run ended before the driver's actions[%d] (%s)", next, d.Actions[next].Do)
	}
	if _, err := rt.Drive(ctx, execID); err != nil {
		return Run{}, fmt.Errorf("replay: %w", err)
	}
	st, err := rt.State(ctx, execID)
	if err != nil {
		return Run{}, err
	}
	canon, err := fold.CanonicalState(st)
	if err != nil {
		return Run{}, err
	}
	log, err := store.Read(ctx, execID)
	return Run{ExecutionID: execID, Log: log, State: string(canon)}, err
}
