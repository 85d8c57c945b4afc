package carrier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spi"
)

// StartInput is the input of a driver's start action (null when it has none).
func StartInput(d *flowscript.Driver) json.RawMessage {
	if len(d.Actions) > 0 && d.Actions[0].Input != nil {
		return d.Actions[0].Input
	}
	return json.RawMessage("null")
}

// wireRun is a wire client's drive of one execution: the script its driver re-drives (the target
// of the last resumeAs), the flow's input and the driver's seat.
type wireRun struct {
	c      *Client
	dr     *Driver
	script *flowscript.Script
	input  json.RawMessage
	status string // after the last drive or action: running (a driver holds it), suspended, or ended
}

// redrive drives the script from the top: to a park, or to its end (execution.complete).
func (w *wireRun) redrive(ctx context.Context) error {
	out, fail, err := driveScope(ctx, w.dr, flowscript.TopScope(w.script, w.input), nil)
	if errors.Is(err, errParked) {
		w.status = fold.StatusSuspended
		return nil
	}
	if err != nil {
		return err
	}
	if err := complete(ctx, w.dr, out, fail); err != nil {
		return err
	}
	w.status = fold.StatusCompleted
	if fail != nil {
		w.status = fold.StatusFailed
	}
	return nil
}

// refused reports whether an action's error is the kernel's answer to it (recorded or refused,
// the run left as it was) rather than a fault that ends the drive: a driver action may be
// refused, as the golden records it in process.
func refused(err error) bool {
	ce, ok := asCall(err)
	return ok && (ce.RPC.Code == CodeRefused || ce.RPC.Code == CodeNotRunnable)
}

// act sends one driver action after start (docs/wire.md, "Driving a flow script"). A resume or
// resumeAs with attach re-drives the run from the top.
func (w *wireRun) act(ctx context.Context, a flowscript.DriverAction) error {
	id := w.dr.ExecutionID
	var at Attached
	switch a.Do {
	case "resume":
		err := w.c.Call(ctx, MethodResume, map[string]any{"executionId": id, "eventType": a.EventType, "payload": payloadOr(a.Payload), "attach": true}, &at)
		if refused(err) {
			return nil // recorded as RESUME_REFUSED, or the execution is terminal: nothing changes
		}
		if err != nil {
			return err
		}
		w.dr.Token = at.Driver
		return w.redrive(ctx)
	case "fireTimers":
		wakeAt, due, err := w.dueTimer(ctx, a.At)
		if err != nil || !due {
			return err
		}
		return w.act(ctx, timerFired(wakeAt))
	case "cancel":
		err := w.c.Call(ctx, MethodCancel, map[string]any{"executionId": id, "reason": a.Reason}, &at)
		if refused(err) {
			return nil
		}
		if err == nil {
			w.status = at.Status
		}
		return err
	case "resumeAs":
		p := map[string]any{"executionId": id, "flowId": a.Script.ID, "attach": true}
		if a.EventType != "" {
			p["eventType"], p["payload"] = a.EventType, payloadOr(a.Payload)
		}
		input := w.input
		if a.Transform != nil {
			cur, err := currentInput(ctx, w.c, id)
			if err != nil {
				return err
			}
			if input, err = a.Transform.Apply(cur); err != nil {
				return nil // the caller's transform failed: nothing is sent, nothing appended
			}
			p["input"] = input
		}
		err := w.c.Call(ctx, MethodResumeAs, p, &at)
		if refused(err) {
			return nil
		}
		if err != nil {
			return err
		}
		w.dr.Token, w.script, w.input = at.Driver, a.Script, input
		return w.redrive(ctx)
	}
	return fmt.Errorf("driver action %q is not a wire client's (clients.Inexpressible)", a.Do)
}

// timerFired is the resume that fires a timer due at wakeAt: TIMER_FIRED {wakeAt}, which the
// ingress gate accepts only for a park that recorded that wakeAt (spec §5).
func timerFired(wakeAt int64) flowscript.DriverAction {
	return flowscript.DriverAction{Do: "resume", EventType: manifest.TimerFired, Payload: mustJSON(map[string]int64{"wakeAt": wakeAt})}
}

// dueWakeAt is the wakeAt of a park on the timer gate recorded in a folded state's
// variables._suspendedOn, when it is due at virtual time at.
func dueWakeAt(suspendedOn json.RawMessage, at int64) (int64, bool) {
	var on struct {
		On     string `json:"on"`
		WakeAt int64  `json:"wakeAt"`
	}
	if json.Unmarshal(suspendedOn, &on) != nil || on.On != manifest.TimerFired || on.WakeAt <= 0 {
		return 0, false
	}
	return on.WakeAt, on.WakeAt <= at
}

// dueTimer reads the execution's park: the wakeAt of its timer when it is due at virtual time at.
// The client holds the driver's virtual clock, so firing a due timer is its resume (I-WIRE-18).
func (w *wireRun) dueTimer(ctx context.Context, at int64) (int64, bool, error) {
	status, on, err := variable(ctx, w.c, w.dr.ExecutionID, fold.VarSuspendedOn)
	if err != nil {
		return 0, false, err
	}
	wakeAt, due := dueWakeAt(on, at)
	return wakeAt, due && status == fold.StatusSuspended, nil
}

// currentInput reads the execution's input as its folded state holds it (variables._input).
func currentInput(ctx context.Context, c *Client, id string) (json.RawMessage, error) {
	_, in, err := variable(ctx, c, id, fold.VarInput)
	return payloadOr(in), err
}

// variable reads the execution's status and one variable of its folded state (execution.getState).
func variable(ctx context.Context, c *Client, id, name string) (string, json.RawMessage, error) {
	var st stateResult
	if err := c.Call(ctx, MethodGetState, map[string]any{"executionId": id}, &st); err != nil {
		return "", nil, err
	}
	var s struct {
		Variables map[string]json.RawMessage `json:"variables"`
	}
	if err := json.Unmarshal([]byte(st.Canonical), &s); err != nil {
		return "", nil, fmt.Errorf("execution.getState: canonical state: %v", err)
	}
	return st.Status, s.Variables[name], nil
}

// DriveWire drives flow script s with driver d as execution execID over the wire, the way
// docs/wire.md tells a client to: start (with the driver's budget, if any) and step the script's
// machine, making each call a syscall; at a park, send the driver's next action — a resume or
// resumeAs with attach re-drives from the top (the kernel serves what the log answers), a cancel
// ends the run — until the actions are spent; a run that ends completes with the script's output
// or failure. A finished execution (completed or failed) is then replayed read-only (attach,
// re-drive, complete: nothing may be appended). It returns the log and folded state the kernel
// holds.
func DriveWire(ctx context.Context, c *Client, execID string, s *flowscript.Script, d *flowscript.Driver) (Run, error) {
	if len(d.Actions) == 0 || d.Actions[0].Do != "start" {
		return Run{}, errors.New("driver: the first action must be start")
	}
	w := &wireRun{c: c, script: s, input: StartInput(d)}
	p := map[string]any{"flowId": s.ID, "executionId": execID, "input": w.input}
	if d.Budget != nil {
		p["budget"] = d.Budget
	}
	var a Attached
	if err := c.Call(ctx, MethodStart, p, &a); err != nil {
		return Run{}, err
	}
	w.dr = &Driver{C: c, ExecutionID: execID, Token: a.Driver}
	if err := w.redrive(ctx); err != nil {
		return Run{}, err
	}
	for i, act := range d.Actions[1:] {
		if err := w.act(ctx, act); err != nil {
			return Run{}, fmt.Errorf("actions[%d] %s: %w", i+1, act.Do, err)
		}
	}
	if w.status == fold.StatusSuspended {
		return Run{}, errors.New("the run parked and the driver has no action left")
	}
	if w.status != fold.StatusCompleted && w.status != fold.StatusFailed {
		return State(ctx, c, execID)
	}
	before, err := State(ctx, c, execID)
	if err != nil {
		return Run{}, err
	}
	// replay: attach to the ended execution and re-drive it; the kernel serves every answer.
	if err := c.Call(ctx, MethodAttach, map[string]any{"executionId": execID}, &a); err != nil {
		return Run{}, fmt.Errorf("replay: %w", err)
	}
	w.dr.Token = a.Driver
	if err := w.redrive(ctx); err != nil {
		return Run{}, fmt.Errorf("replay: %w", err)
	}
	if w.status == fold.StatusSuspended {
		return Run{}, errors.New("replay: a syscall parked a finished execution")
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

// register registers a flow script on rt as a wire flow: no code hash (its code is its driver).
func register(rt *kernel.Runtime, s *flowscript.Script) error {
	def := flowscript.Def(s, flowscript.Options{SerialBranches: true})
	def.CodeHash = "" // a wire flow's code is its driver: execution.start records no code hash
	return rt.Register(def)
}

// RunInProcess runs flow script s with driver d as execution execID on rt in process (the
// flow-script interpreter, branches serial), as DriveWire drives it over the wire: started with
// the driver's budget, then the driver's resumes, cancels and resumeAs (an action the kernel
// refuses leaves the run as it was), then a finished execution replayed read-only. It is the
// reference a wire run is compared with.
func RunInProcess(ctx context.Context, rt *kernel.Runtime, store spi.EventStore, execID string, s *flowscript.Script, d *flowscript.Driver) (Run, error) {
	if len(d.Actions) == 0 || d.Actions[0].Do != "start" {
		return Run{}, errors.New("driver: the first action must be start")
	}
	if err := register(rt, s); err != nil {
		return Run{}, err
	}
	if d.Budget != nil {
		rt.SetExecutionBudget(execID, kernel.Budget(d.Budget))
	}
	res, err := rt.Start(ctx, s.ID, execID, StartInput(d))
	if err != nil {
		return Run{}, err
	}
	for i, a := range d.Actions[1:] {
		var r kernel.Result
		switch a.Do {
		case "resume":
			r, err = rt.Resume(ctx, execID, a.EventType, payloadOr(a.Payload))
		case "cancel":
			r, err = rt.Cancel(ctx, execID, a.Reason)
		case "fireTimers":
			st, serr := rt.State(ctx, execID)
			if serr != nil {
				return Run{}, serr
			}
			wakeAt, due := dueWakeAt(st.Variables.Values[fold.VarSuspendedOn], a.At)
			if !due || st.Status != fold.StatusSuspended {
				continue
			}
			t := timerFired(wakeAt)
			r, err = rt.Resume(ctx, execID, t.EventType, t.Payload)
		case "resumeAs":
			if err := register(rt, a.Script); err != nil {
				return Run{}, err
			}
			req := kernel.ResumeAsRequest{FlowID: a.Script.ID, EventType: a.EventType}
			if a.EventType != "" {
				req.Payload = payloadOr(a.Payload)
			}
			if a.Transform != nil {
				req.Transform = a.Transform.Apply
			}
			r, err = rt.ResumeAs(ctx, execID, req)
		default:
			return Run{}, fmt.Errorf("actions[%d] %s: not a wire client's action", i+1, a.Do)
		}
		if err == nil {
			res = r // an error is a refusal: the run stays as it was
		}
	}
	if res.Status == fold.StatusSuspended {
		return Run{}, errors.New("the run parked and the driver has no action left")
	}
	if res.Status == fold.StatusCompleted || res.Status == fold.StatusFailed {
		if _, err := rt.Drive(ctx, execID); err != nil {
			return Run{}, fmt.Errorf("replay: %w", err)
		}
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
