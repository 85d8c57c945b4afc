package carrier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/spi"
)

// StartInput is the input of a driver's start action (null when it has none).
func StartInput(d *flowscript.Driver) json.RawMessage {
	for _, a := range d.Actions {
		if a.Do == "start" {
			return payloadOr(a.Input)
		}
	}
	return json.RawMessage("null")
}

// DriveOptions are what a drive needs of the conformance extension (docs/wire.md, "Conformance
// extension"): the zero value drives a plain wire client's way.
type DriveOptions struct {
	// Crashes are the envelope sequences the driver's crash actions fail at, in action order (as
	// the in-process run recorded them, Run.Crashes); a crash action arms conformance.crash at its
	// sequence (-1: it never fired in process, nothing is armed).
	Crashes []int64
	// Clock sets the kernel's clock to the driver's virtual time with conformance.clock: the
	// driver's clock at start and each fireTimers' time (then released).
	Clock bool
	// Observe, when set, is called after each driver action with the action's index: what the
	// kernel shows of the execution between actions (its getState) can be read there.
	Observe func(ctx context.Context, action int) error
}

// verdictPayload is the resume payload of a driver's in-doubt verdict (I-KERNEL-52).
func verdictPayload(a flowscript.DriverAction) json.RawMessage {
	return mustJSON(ingress.Verdict{StepID: a.StepID, Attempt: a.Attempt, Verdict: a.Verdict, Output: a.Output})
}

// wireRun is a wire client's drive of one execution: the script its driver re-drives (the target
// of the last resumeAs), the flow's input and the driver's seat.
type wireRun struct {
	c      *Client
	dr     *Driver
	script *flowscript.Script
	input  json.RawMessage
	status string // after the last drive or action: running (a driver holds it), suspended, crashed, or ended
	exec   func(ctx context.Context, driverID string) (string, error)
	o      DriveOptions
	crash  int // crash actions seen
	armed  bool
}

// crashed reports whether err ends the drive as the armed crash: the call in flight when it fired
// answered an error that is no step outcome (the reference: -32603, kind crash) and the run is over.
func (w *wireRun) crashed(err error) bool {
	ce, ok := asCall(err)
	if !w.armed || !ok || isFailure(ce.RPC) {
		return false
	}
	w.armed, w.status = false, statusCrashed
	return true
}

// statusCrashed is a wire run's status after an injected crash: running with no run behind it.
const statusCrashed = "crashed"

// setClock sets the kernel's clock (conformance.clock) when the drive holds it.
func (w *wireRun) setClock(ctx context.Context, now *int64) error {
	if !w.o.Clock {
		return nil
	}
	return w.c.Call(ctx, MethodConformanceClock, map[string]any{"now": now}, nil)
}

// execOf is the wire execution of a driver's execution id (the driver's own, or one continueAsNew
// derived from it, such as "e1.next").
func (w *wireRun) execOf(ctx context.Context, id string) (string, error) {
	if id == "" {
		return w.dr.ExecutionID, nil
	}
	return w.exec(ctx, id)
}

// continuedOf maps a driver's execution ids onto the kernel's: the driver's execution
// (d.Execution) is execID, and an id the reference derives from it by continueAsNew ("e1.next",
// "e1.next.next": I-KERNEL-16, a choice) names the execution the k-th continueAsNew started,
// which the kernel's state names in _continuedTo, whatever id the kernel gave it.
func continuedOf(c *Client, d *flowscript.Driver, execID string) func(context.Context, string) (string, error) {
	return func(ctx context.Context, id string) (string, error) {
		rest, ok := strings.CutPrefix(id, d.Execution)
		k := strings.Count(rest, ".next")
		if !ok || rest != strings.Repeat(".next", k) {
			return ExecOf(d, execID)(id), nil
		}
		cur := execID
		for range k {
			_, raw, err := variable(ctx, c, cur, fold.VarContinuedTo)
			if err != nil {
				return "", err
			}
			var next string
			if json.Unmarshal(raw, &next) != nil || next == "" {
				return "", fmt.Errorf("execution %s names no execution it continued to (variables._continuedTo = %s), want the one %s names", cur, raw, id)
			}
			cur = next
		}
		return cur, nil
	}
}

// ExecOf maps a driver's execution ids onto execID: the driver's execution (d.Execution) is
// execID, and an id derived from it (continueAsNew's "e1.next") keeps its suffix.
func ExecOf(d *flowscript.Driver, execID string) func(string) string {
	return func(id string) string {
		if rest, ok := strings.CutPrefix(id, d.Execution); ok {
			return execID + rest
		}
		return id
	}
}

// redrive drives the script from the top: to a park, or to its end (execution.complete).
func (w *wireRun) redrive(ctx context.Context) error {
	out, fail, err := driveScope(ctx, w.dr, flowscript.TopScope(w.script, w.input), nil)
	if w.crashed(err) {
		return nil
	}
	if errors.Is(err, errParked) {
		w.status = fold.StatusSuspended
		if w.dr.Ended == fold.StatusContinued {
			w.status = fold.StatusContinued
		}
		return nil
	}
	if err != nil {
		return err
	}
	if err := complete(ctx, w.dr, out, fail); err != nil {
		if w.crashed(err) {
			return nil
		}
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
		eventType, err := w.humanGate(ctx, a.EventType)
		if err != nil {
			return err
		}
		err = w.c.Call(ctx, MethodResume, map[string]any{"executionId": id, "eventType": eventType, "payload": payloadOr(a.Payload), "attach": true}, &at)
		if refused(err) {
			return nil // recorded as RESUME_REFUSED, or the execution is terminal: nothing changes
		}
		if err != nil {
			return err
		}
		w.dr.Token = at.Driver
		return w.redrive(ctx)
	case "fireTimers":
		at := a.At
		if err := w.setClock(ctx, &at); err != nil {
			return err
		}
		wakeAt, due, err := w.dueTimer(ctx, a.At)
		if err != nil || !due {
			return err
		}
		return w.act(ctx, timerFired(wakeAt))
	case "crash":
		k := w.crash
		w.crash++
		if k >= len(w.o.Crashes) || w.o.Crashes[k] < 0 {
			return nil // it never fired in process: nothing to arm
		}
		w.armed = true
		return w.c.Call(ctx, MethodConformanceCrash, map[string]any{"executionId": id, "sequence": w.o.Crashes[k]}, nil)
	case "recover":
		// re-drive a crashed execution: attach (mode recover) and drive the script from the top
		if err := w.c.Call(ctx, MethodAttach, map[string]any{"executionId": id}, &at); err != nil {
			if refused(err) {
				return nil
			}
			return err
		}
		w.dr.Token = at.Driver
		return w.redrive(ctx)
	case "verdict":
		return w.act(ctx, flowscript.DriverAction{Do: "resume", EventType: fold.GateInDoubt, Payload: verdictPayload(a)})
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
	case "deliver":
		err := w.c.Call(ctx, MethodDeliver, map[string]any{"executionId": id, "topic": a.Topic, "messageId": a.MessageID, "message": payloadOr(a.Message), "attach": true}, &at)
		if refused(err) {
			return nil // no open wait on the topic: nothing appended
		}
		if err != nil {
			return err
		}
		w.dr.Token = at.Driver
		return w.redrive(ctx)
	case "drive":
		// drive the execution continueAsNew started: attach and drive the script from the top
		// with the input it was started with (I-WIRE-21)
		next, err := w.execOf(ctx, a.Execution)
		if err != nil {
			return err
		}
		if err := w.c.Call(ctx, MethodAttach, map[string]any{"executionId": next}, &at); err != nil {
			return err
		}
		in, err := currentInput(ctx, w.c, next)
		if err != nil {
			return err
		}
		nw := &wireRun{c: w.c, dr: &Driver{C: w.c, ExecutionID: next, Token: at.Driver}, script: w.script, input: in, exec: w.exec}
		return nw.redrive(ctx)
	}
	return fmt.Errorf("driver action %q is not a wire client's (clients.Inexpressible)", a.Do)
}

// humanGate is the gate a resume the driver addresses to eventType goes to: the driver names a
// human step's gate as the reference does, by the step's id (I-KERNEL-22, a choice), so when the
// kernel parked that step (condition.stepId) on a gate of its own, the resume goes there.
func (w *wireRun) humanGate(ctx context.Context, eventType string) (string, error) {
	_, raw, err := variable(ctx, w.c, w.dr.ExecutionID, fold.VarSuspendedOn)
	if err != nil {
		return "", err
	}
	var on struct {
		On        string `json:"on"`
		Condition struct {
			StepID string `json:"stepId"`
		} `json:"condition"`
	}
	if json.Unmarshal(raw, &on) == nil && on.Condition.StepID == eventType && on.On != "" {
		return on.On, nil
	}
	return eventType, nil
}

// timerFired is the resume that fires a timer due at wakeAt: TIMER_FIRED {wakeAt}, which the
// ingress gate accepts only for a park that recorded that wakeAt (spec §5).
func timerFired(wakeAt int64) flowscript.DriverAction {
	return flowscript.DriverAction{Do: "resume", EventType: manifest.TimerFired, Payload: mustJSON(map[string]int64{"wakeAt": wakeAt})}
}

// dueWakeAt is the wakeAt of a timed park recorded in a folded state's variables._suspendedOn,
// when it is due at virtual time at. Any park with a wakeAt is the timer's to wake (spec §5), on
// whatever gate it parked: the gate a sleep parks on is a kernel's choice (I-KERNEL-7).
func dueWakeAt(suspendedOn json.RawMessage, at int64) (int64, bool) {
	var on struct {
		WakeAt int64 `json:"wakeAt"`
	}
	if json.Unmarshal(suspendedOn, &on) != nil || on.WakeAt <= 0 {
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
	var st StateResult
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
	return DriveWireWith(ctx, c, execID, s, d, DriveOptions{})
}

// DriveWireWith is DriveWire for a driver that needs the conformance extension (its crashes,
// recoveries and verdicts, or its clock): o says what to arm.
func DriveWireWith(ctx context.Context, c *Client, execID string, s *flowscript.Script, d *flowscript.Driver, o DriveOptions) (Run, error) {
	run, err := driveWire(ctx, c, execID, s, d, o)
	if err != nil {
		return Run{}, err
	}
	return withDriven(ctx, run, d, continuedOf(c, d, execID), func(id string) (Run, error) { return State(ctx, c, id) })
}

// start is the driver's start action: execution.start (with the driver's budget), then the
// script driven from the top.
func (w *wireRun) start(ctx context.Context, execID string, d *flowscript.Driver) error {
	p := map[string]any{"flowId": w.script.ID, "executionId": execID, "input": w.input}
	if d.Budget != nil {
		p["budget"] = d.Budget
	}
	var a Attached
	if err := w.c.Call(ctx, MethodStart, p, &a); err != nil {
		if w.crashed(err) {
			return nil
		}
		return err
	}
	w.dr.Token = a.Driver
	return w.redrive(ctx)
}

func driveWire(ctx context.Context, c *Client, execID string, s *flowscript.Script, d *flowscript.Driver, o DriveOptions) (run Run, err error) {
	w := &wireRun{c: c, script: s, input: StartInput(d), exec: continuedOf(c, d, execID), o: o, dr: &Driver{C: c, ExecutionID: execID}}
	if o.Clock {
		at := d.Clock
		if err := w.setClock(ctx, &at); err != nil {
			return Run{}, err
		}
		defer func() {
			if rerr := w.setClock(context.WithoutCancel(ctx), nil); err == nil && rerr != nil {
				run, err = Run{}, rerr
			}
		}()
	}
	started := false
	for i, act := range d.Actions {
		switch {
		case act.Do == "start" && !started:
			started = true
			err = w.start(ctx, execID, d)
		case !started && act.Do != "crash":
			return Run{}, errors.New("driver: the first action (after crash) must be start")
		default:
			err = w.act(ctx, act)
		}
		if err == nil && o.Observe != nil && started {
			err = o.Observe(ctx, i)
		}
		if err != nil {
			return Run{}, fmt.Errorf("actions[%d] %s: %w", i, act.Do, err)
		}
	}
	if !started {
		return Run{}, errors.New("driver: no start action")
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
	var a Attached
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

// withDriven adds to run the runs of the executions d's drive actions drove (resolved by exec),
// read by state.
func withDriven(ctx context.Context, run Run, d *flowscript.Driver, exec func(context.Context, string) (string, error), state func(id string) (Run, error)) (Run, error) {
	for _, a := range d.Actions {
		if a.Do != "drive" || a.Execution == "" {
			continue
		}
		id, err := exec(ctx, a.Execution)
		if err != nil {
			return Run{}, err
		}
		r, err := state(id)
		if err != nil {
			return Run{}, err
		}
		run.Driven = append(run.Driven, r)
	}
	return run, nil
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
	return RunInProcessWith(ctx, rt, store, nil, false, execID, s, d)
}

// RunInProcessWith is RunInProcess on a runtime whose clock and store are cf's (WithConformance):
// the driver's crash actions arm cf (the n-th append from then fails), recover and verdict
// re-drive the crashed or in-doubt run, and with clock the runtime's clock is held at the driver's
// virtual time (its clock at start, each fireTimers' time). Run.Crashes records where each crash
// fired, for the wire drive of the same script (DriveOptions).
func RunInProcessWith(ctx context.Context, rt *kernel.Runtime, store spi.EventStore, cf *Conformance, clock bool, execID string, s *flowscript.Script, d *flowscript.Driver) (Run, error) {
	if err := register(rt, s); err != nil {
		return Run{}, err
	}
	if d.Budget != nil {
		rt.SetExecutionBudget(execID, kernel.Budget(d.Budget))
	}
	if clock {
		if cf == nil {
			return Run{}, errors.New("driver: a held clock needs the conformance extension")
		}
		at := d.Clock
		cf.SetClock(&at)
		defer cf.SetClock(nil)
	}
	var res kernel.Result
	var crashes []int64
	fired := 0 // crashes cf recorded when the last crash action armed
	settle := func() {
		if len(crashes) > 0 && crashes[len(crashes)-1] < 0 && len(cf.Crashed()) > fired {
			crashes[len(crashes)-1] = cf.Crashed()[fired]
		}
	}
	started := false
	for i, a := range d.Actions {
		var r kernel.Result
		var err error
		if !started && a.Do != "start" && a.Do != "crash" {
			return Run{}, errors.New("driver: the first action (after crash) must be start")
		}
		switch a.Do {
		case "start":
			if started {
				return Run{}, fmt.Errorf("actions[%d] start: a driver starts once", i)
			}
			started = true
			r, err = rt.Start(ctx, s.ID, execID, StartInput(d))
			if err != nil && !errors.Is(err, ErrInjectedCrash) {
				return Run{}, err
			}
		case "crash":
			if cf == nil {
				return Run{}, fmt.Errorf("actions[%d] crash: needs the conformance extension", i)
			}
			settle()
			fired = len(cf.Crashed())
			crashes = append(crashes, -1)
			cf.ArmAppends(int(a.At))
			continue
		case "recover":
			r, err = rt.Recover(ctx, execID)
		case "verdict":
			r, err = rt.Resume(ctx, execID, fold.GateInDoubt, verdictPayload(a))
		case "resume":
			r, err = rt.Resume(ctx, execID, a.EventType, payloadOr(a.Payload))
		case "cancel":
			r, err = rt.Cancel(ctx, execID, a.Reason)
		case "fireTimers":
			if clock {
				at := a.At
				cf.SetClock(&at)
			}
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
		case "deliver":
			r, err = rt.Deliver(ctx, execID, a.Topic, a.MessageID, payloadOr(a.Message))
		case "drive":
			id := execID
			if a.Execution != "" {
				id = ExecOf(d, execID)(a.Execution)
			}
			if _, err := rt.Drive(ctx, id); err != nil {
				return Run{}, fmt.Errorf("actions[%d] drive: %w", i, err)
			}
			continue
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
			return Run{}, fmt.Errorf("actions[%d] %s: not a wire client's action", i, a.Do)
		}
		if err == nil {
			res = r // an error is a refusal (or the armed crash): the run stays as it was
		}
	}
	if cf != nil {
		settle()
	}
	if res.Status == fold.StatusSuspended {
		return Run{}, errors.New("the run parked and the driver has no action left")
	}
	if res.Status == fold.StatusCompleted || res.Status == fold.StatusFailed {
		if _, err := rt.Drive(ctx, execID); err != nil {
			return Run{}, fmt.Errorf("replay: %w", err)
		}
	}
	state := func(id string) (Run, error) {
		st, err := rt.State(ctx, id)
		if err != nil {
			return Run{}, err
		}
		canon, err := fold.CanonicalState(st)
		if err != nil {
			return Run{}, err
		}
		log, err := store.Read(ctx, id)
		return Run{ExecutionID: id, Log: log, State: string(canon)}, err
	}
	run, err := state(execID)
	if err != nil {
		return Run{}, err
	}
	run.Crashes = crashes
	inProcess := ExecOf(d, execID)
	return withDriven(ctx, run, d, func(_ context.Context, id string) (string, error) { return inProcess(id), nil }, state)
}
