package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// outcome is how a flow goroutine ended.
type outcome struct {
	out       any
	err       error
	abort     error // the run could not write (store failure, abandoned)
	panicked  any
	isPanic   bool
	parked    bool
	continued bool
}

// runWith appends pre (the events that open this run: EXECUTION_STARTED, an accepted resume, a
// recovery) and runs the flow over the log. With no pre and a parked or terminal log, the run is
// a read-only replay.
func (rt *Runtime) runWith(ctx context.Context, execID string, def FlowDef, st fold.State, pre []newEvent) (Result, error) {
	readOnly := len(pre) == 0 && st.Status != fold.StatusRunning
	var preEnvs []spi.Envelope
	if len(pre) > 0 {
		// The opening events are guarded by the store's optimistic concurrency (they name the next
		// sequence), so a caller that loses a race appends nothing and takes no fence from the
		// winner; the fence is taken once this caller is the execution's driver (I-KERNEL-20).
		r0 := newRun(rt, ctx, execID, def, st)
		r0.mu.Lock()
		err := r0.appendLocked(pre...)
		r0.mu.Unlock()
		r0.cancel()
		if err != nil {
			return Result{}, err
		}
		preEnvs = r0.appended
		next, err := fold.Fold(rt.cfg.Profile, &st, preEnvs)
		if err != nil {
			return Result{}, &StoreError{ExecutionID: execID, Op: "fold", Err: err}
		}
		st = next
		if st.Status != fold.StatusRunning { // e.g. resumeAs onto a terminal execution: status only
			return Result{ExecutionID: execID, Status: st.Status, Appended: preEnvs}, nil
		}
	}
	var fence int64
	if !readOnly && spi.Has(manifest.SeamEventStore, rt.cfg.Store, spi.MethodAcquireFence) && !rt.cfg.Hooks.NoFence {
		f, err := rt.cfg.Store.(spi.Fencer).AcquireFence(ctx, execID)
		if err != nil {
			return Result{ExecutionID: execID, Status: st.Status, Appended: preEnvs}, &StoreError{ExecutionID: execID, Op: "acquireFence", Err: err}
		}
		fence = f.Token
	}
	r := newRun(rt, ctx, execID, def, st)
	defer r.cancel()
	r.fence = fence
	r.readOnly = readOnly
	r.appended = preEnvs
	res, err := r.execute(st.Variables.Values[fold.VarInput])
	res.Appended = r.appendedCopy()
	return res, err
}

func (r *run) appendedCopy() []spi.Envelope {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]spi.Envelope(nil), r.appended...)
}

// execute runs the flow function in its own goroutine, bounded by RunTimeout and the caller's
// context, and records how it ended.
func (r *run) execute(input json.RawMessage) (Result, error) {
	if input == nil {
		input = json.RawMessage("null")
	}
	res := Result{ExecutionID: r.execID, ReadOnly: r.readOnly}
	done := make(chan outcome, 1)
	c := &Context{r: r}
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o = classifyPanic(p)
			}
			done <- o
		}()
		o.out, o.err = r.flow.Fn(c, input)
		if r.isParked() {
			o.parked = true // a flow that swallowed the park still parked
		}
	}()
	timer := time.NewTimer(r.rt.cfg.RunTimeout)
	defer timer.Stop()
	var o outcome
	select {
	case o = <-done:
	case <-timer.C:
		err := &FlowTimeoutError{ExecutionID: r.execID, Err: fmt.Errorf("no result within RunTimeout %v", r.rt.cfg.RunTimeout)}
		r.close(err)
		res.Status = fold.StatusRunning
		return res, err
	case <-r.ctx.Done():
		err := &FlowTimeoutError{ExecutionID: r.execID, Err: r.ctx.Err()}
		r.close(err)
		res.Status = fold.StatusRunning
		return res, err
	}
	switch {
	case o.abort != nil:
		res.Status = fold.StatusRunning
		return res, o.abort
	case o.isPanic:
		err := &FlowPanicError{ExecutionID: r.execID, Value: o.panicked}
		r.close(err)
		res.Status = fold.StatusRunning
		return res, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed != nil {
		res.Status = fold.StatusRunning
		return res, r.closed
	}
	switch {
	case r.continuedTo != "":
		res.Status, res.ContinuedTo = fold.StatusContinued, r.continuedTo
		return res, nil
	case o.parked || r.parked:
		res.Status, res.SuspendedOn = fold.StatusSuspended, r.parkedGate
		if r.readOnly && r.startStatus != fold.StatusSuspended {
			return res, &ReplayDivergenceError{ExecutionID: r.execID, EventType: manifest.ExecutionSuspended}
		}
		return res, nil
	}
	if r.readOnly {
		res.Status = r.startStatus
		if r.startStatus == fold.StatusSuspended {
			return res, &ReplayDivergenceError{ExecutionID: r.execID, EventType: "EXECUTION_COMPLETED or EXECUTION_FAILED"}
		}
		if r.startStatus == fold.StatusCompleted {
			out, err := rawJSON(o.out)
			if o.err != nil || err != nil || !spi.SameJSON(out, r.recordedOut) {
				return res, &ReplayDivergenceError{ExecutionID: r.execID, EventType: "EXECUTION_COMPLETED with another output"}
			}
			res.Output = out
		}
		return res, nil
	}
	if o.err != nil {
		errPayload := obj("message", o.err.Error())
		if err := r.appendLocked(newEvent{eventType: manifest.ExecutionFailed, payload: obj("error", errPayload)}); err != nil {
			return res, err
		}
		res.Status, res.Error = fold.StatusFailed, errPayload
		return res, nil
	}
	out, err := rawJSON(o.out)
	if err != nil {
		errPayload := obj("message", "flow output has no JSON form: "+err.Error())
		if err := r.appendLocked(newEvent{eventType: manifest.ExecutionFailed, payload: obj("error", errPayload)}); err != nil {
			return res, err
		}
		res.Status, res.Error = fold.StatusFailed, errPayload
		return res, nil
	}
	if err := r.appendLocked(newEvent{eventType: manifest.ExecutionCompleted, payload: obj("output", out)}); err != nil {
		return res, err
	}
	res.Status, res.Output = fold.StatusCompleted, out
	return res, nil
}

func (r *run) isParked() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.parked || r.continuedTo != ""
}

// classifyPanic turns a recovered value into an outcome: the runtime's own unwinding signals, or
// a genuine panic of flow code.
func classifyPanic(p any) outcome {
	switch s := p.(type) {
	case abortSignal:
		return outcome{abort: s.err}
	case parkSignal:
		return outcome{parked: true}
	case continueSignal:
		return outcome{continued: true}
	case branchPanic:
		return outcome{isPanic: true, panicked: s.value}
	}
	return outcome{isPanic: true, panicked: p}
}
