package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// quotaChannel is the reserved typed-failure channel a budget refusal is recorded on, so a re-run
// serves the refusal instead of asking admission control again (I-KERNEL-9).
const quotaChannel = "__loom_quota__"

func (c *Context) execute(syscall string, task Task, input any) (json.RawMessage, error) {
	r := c.r
	r.mu.Lock()
	locked := true
	defer func() {
		if locked {
			r.mu.Unlock()
		}
	}()
	c.enter()
	if task.ID == "" {
		return nil, &SyscallError{Syscall: syscall, Reason: "empty step id"}
	}
	if task.Kind == KindHuman {
		if isReserved(task.ID) || manifest.IsKernelEventType(task.ID) && !r.rt.cfg.Choices.HumanKernelGate {
			return nil, &SyscallError{Syscall: syscall, Reason: "a human step's id names its gate and may not be reserved or a kernel event type"}
		}
		return c.human(task, input)
	}
	eff, errMap, atMostOnce, err := r.resolve(syscall, task)
	if err != nil {
		return nil, err
	}
	attempt := 1
	if f, ok := r.frame(task.ID); ok {
		switch {
		case f.status == fold.FrameCompleted && !r.rt.cfg.Hooks.RerunCompletedSteps:
			return f.output, nil
		case f.status == fold.FrameFailed && f.channel == quotaChannel:
			return nil, quotaFromPayload(task.ID, f.payload)
		case f.status == fold.FrameFailed && f.channel != "" && !r.rt.cfg.Hooks.RerunTypedFailures:
			return nil, &TypedFailure{Channel: f.channel, Payload: f.payload}
		case f.status == fold.FrameFailed && f.channel == "" && f.degradedFrom != "" && r.rt.cfg.Hooks.ServeDegradedTyped:
			return nil, &TypedFailure{Channel: f.degradedFrom, Payload: json.RawMessage("{}")}
		case f.status == fold.FrameFailed && f.channel == "" && r.rt.cfg.Hooks.ServeUntypedFailures:
			return nil, &StepFailedError{StepID: task.ID, Attempt: f.attempt, Message: f.message, Timeout: f.timeout}
		case r.readOnly && f.status == fold.FrameFailed:
			// a read-only replay serves even an untyped failure: it may not run effects (I-KERNEL-1)
			return nil, &StepFailedError{StepID: task.ID, Attempt: f.attempt, Message: f.message, Timeout: f.timeout}
		case r.readOnly && f.status == fold.FrameCancelled:
			return nil, &StepCancelledError{StepID: task.ID, Reason: "cancelled (recorded)"}
		case (f.status == fold.FrameRunning || f.status == fold.FrameRetrying) && atMostOnce:
			out, served, err := c.inDoubt(task.ID, f)
			if served || err != nil {
				return out, err
			}
		}
		attempt = f.attempt + 1
		if r.rt.cfg.Hooks.RetrySameAttempt {
			attempt = f.attempt
		}
	}
	raw, err := rawJSON(input)
	if err != nil {
		return nil, &SyscallError{Syscall: syscall, Reason: fmt.Sprintf("step %q input has no JSON form: %v", task.ID, err)}
	}
	if r.readOnly {
		panic(abortSignal{r.divergence(manifest.StepStarted)})
	}
	c.markLive()
	if q := r.admission(task.ID); q != nil {
		qp := obj("dimension", q.Dimension, "limit", q.Limit, "used", q.Used)
		evs := []newEvent{
			{eventType: manifest.QuotaExceeded, payload: obj("dimension", q.Dimension, "reason", q.Error(), "stepId", task.ID)},
			{eventType: manifest.StepStarted, payload: stepStarted(task, attempt, raw)},
			{eventType: manifest.StepFailed, payload: obj("stepId", task.ID, "error", obj("message", q.Error()),
				"channel", quotaChannel, "payload", qp)},
		}
		if r.rt.cfg.Choices.QuotaAfterStart {
			evs[0], evs[1] = evs[1], evs[0]
		}
		r.mustAppend(evs...)
		r.frames[task.ID] = frameRec{status: fold.FrameFailed, attempt: attempt, channel: quotaChannel, payload: qp}
		return nil, q
	}
	if h := r.rt.cfg.Hooks.UnwiredWork; h != nil && (r.rt.cfg.Budget != nil || r.rt.cfg.Timers != nil) {
		h()
	}
	if r.rt.cfg.Hooks.BudgetPresentWrites && r.rt.cfg.Budget != nil {
		r.mustAppend(newEvent{eventType: manifest.ResourceMetered, payload: obj("stepId", task.ID, "tokens", 0)})
	}
	r.mustAppend(newEvent{eventType: manifest.StepStarted, payload: stepStarted(task, attempt, raw)})
	r.frames[task.ID] = frameRec{status: fold.FrameRunning, attempt: attempt}
	r.inFlight++
	locked = false
	r.mu.Unlock()

	res := r.invoke(eff, task, attempt, raw)

	r.mu.Lock()
	locked = true
	return c.settle(task, attempt, errMap, res)
}

func (r *run) divergence(eventType string) error {
	r.closed = &ReplayDivergenceError{ExecutionID: r.execID, EventType: eventType}
	return r.closed
}

// resolve finds the effect of a task: its Fn, or the effect registered under its ToolID.
func (r *run) resolve(syscall string, task Task) (Effect, map[string]PayloadSchema, bool, error) {
	if task.Fn != nil {
		return task.Fn, task.Errors, task.AtMostOnce, nil
	}
	def, ok := r.rt.cfg.Effects[task.ToolID]
	if r.rt.cfg.Hooks.ResolveByKind {
		def, ok = r.rt.cfg.Effects[task.Kind]
	}
	if !ok || def.Fn == nil {
		return nil, nil, false, &SyscallError{Syscall: syscall, Reason: fmt.Sprintf("step %q: no effect registered for toolId %q", task.ID, task.ToolID)}
	}
	errs := def.Errors // the effect's map is the fallback (spec §4.1)
	if task.Errors != nil && !r.rt.cfg.Hooks.EffectErrorMapWins {
		errs = task.Errors // a step that declares a map wins as a whole (I-KERNEL-12)
	}
	return def.Fn, errs, task.AtMostOnce || def.AtMostOnce, nil
}

func stepStarted(task Task, attempt int, input json.RawMessage) json.RawMessage {
	var kind, tool any
	if task.Kind != "" {
		kind = task.Kind
	}
	if task.ToolID != "" {
		tool = task.ToolID
	}
	return obj("stepId", task.ID, "attempt", attempt, "kind", kind, "toolId", tool, "input", input)
}

// effectResult is how an effect invocation ended.
type effectResult struct {
	out      any
	err      error
	timedOut bool
	panicked any
}

// invoke runs the effect in its own goroutine so a timeout or an abandoned run does not wait for
// it; the effect counts as in flight until it really returns (spec §3).
func (r *run) invoke(eff Effect, task Task, attempt int, input json.RawMessage) effectResult {
	if task.Timeout <= 0 {
		// No step deadline: run the effect on the flow goroutine. The run's own deadline still
		// abandons the whole flow goroutine if the effect never returns.
		res := callEffect(eff, &EffectContext{r: r, ctx: r.ctx, stepID: task.ID, attempt: attempt}, input)
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
		return res
	}
	ctx, cancel := context.WithTimeout(r.ctx, task.Timeout)
	ec := &EffectContext{r: r, ctx: ctx, stepID: task.ID, attempt: attempt}
	done := make(chan effectResult, 1)
	go func() {
		var res effectResult
		defer func() {
			if p := recover(); p != nil {
				res = effectResult{panicked: p}
			}
			r.mu.Lock()
			r.inFlight--
			r.mu.Unlock()
			done <- res
		}()
		res.out, res.err = eff(ec, input)
	}()
	select {
	case res := <-done:
		cancel()
		if res.err != nil && task.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) && r.ctx.Err() == nil {
			res.timedOut = true
		}
		return res
	case <-ctx.Done():
		cancel()
		if r.ctx.Err() != nil {
			return effectResult{err: r.ctx.Err()}
		}
		return effectResult{timedOut: true, err: ctx.Err()}
	}
}

func callEffect(eff Effect, ec *EffectContext, input json.RawMessage) (res effectResult) {
	defer func() {
		if p := recover(); p != nil {
			res = effectResult{panicked: p}
		}
	}()
	res.out, res.err = eff(ec, input)
	return res
}

// settle records the outcome of a live effect. r.mu is held.
func (c *Context) settle(task Task, attempt int, errMap map[string]PayloadSchema, res effectResult) (json.RawMessage, error) {
	r := c.r
	if r.closed != nil {
		panic(abortSignal{r.closed})
	}
	id := task.ID
	fail := func(msg string, extra ...any) error {
		e := append([]any{"message", msg}, extra...)
		r.mustAppend(newEvent{eventType: manifest.StepFailed, payload: obj("stepId", id, "error", obj(e...))})
		r.frames[id] = frameRec{status: fold.FrameFailed, attempt: attempt, message: msg}
		r.unserved = true
		return nil
	}
	switch {
	case res.panicked != nil:
		msg := fmt.Sprintf("effect panicked: %v", res.panicked)
		fail(msg)
		return nil, &StepFailedError{StepID: id, Attempt: attempt, Message: msg}
	case res.timedOut:
		msg := fmt.Sprintf("timed out after %v", task.Timeout)
		fail(msg, "timeout", true)
		return nil, &StepFailedError{StepID: id, Attempt: attempt, Message: msg, Timeout: true}
	case res.err == nil:
		out, err := rawJSON(res.out)
		if err != nil {
			msg := "effect output has no JSON form: " + err.Error()
			fail(msg)
			return nil, &StepFailedError{StepID: id, Attempt: attempt, Message: msg}
		}
		r.mustAppend(newEvent{eventType: manifest.StepCompleted, payload: obj("stepId", id, "output", out)})
		r.frames[id] = frameRec{status: fold.FrameCompleted, attempt: attempt, output: out}
		return out, nil
	case errors.Is(res.err, context.Canceled):
		r.mustAppend(newEvent{eventType: manifest.StepCancelled, payload: obj("stepId", id, "reason", res.err.Error())})
		r.frames[id] = frameRec{status: fold.FrameCancelled, attempt: attempt}
		r.unserved = true
		return nil, &StepCancelledError{StepID: id, Reason: res.err.Error()}
	}
	var tf *TypedFailure
	if errors.As(res.err, &tf) {
		payload, degraded := r.checkTyped(tf, errMap)
		if degraded == "" && r.rt.cfg.Hooks.TypedRecordedUntyped {
			fail(tf.Error())
			return nil, &TypedFailure{Channel: tf.Channel, Payload: payload}
		}
		if degraded == "" {
			r.mustAppend(newEvent{eventType: manifest.StepFailed, payload: obj("stepId", id,
				"error", obj("message", tf.Error()), "channel", tf.Channel, "payload", payload)})
			r.frames[id] = frameRec{status: fold.FrameFailed, attempt: attempt, channel: tf.Channel, payload: payload}
			return nil, &TypedFailure{Channel: tf.Channel, Payload: payload}
		}
		if !r.rt.cfg.Hooks.DegradeQuietly {
			r.rt.cfg.Warn(Warning{ExecutionID: r.execID, Code: "typed-failure-degraded",
				Clauses: []string{"S41.typed.degrade-loudly"},
				Message: fmt.Sprintf("step %q: typed failure on channel %q degraded to an untyped STEP_FAILED: %s", id, tf.Channel, degraded)})
		}
		if r.rt.cfg.Choices.DegradeBare {
			fail(tf.Error())
		} else {
			fail(tf.Error(), "degraded", degraded, "channel", tf.Channel)
		}
		return nil, &StepFailedError{StepID: id, Attempt: attempt, Message: tf.Error(), Degraded: degraded}
	}
	fail(res.err.Error())
	return nil, &StepFailedError{StepID: id, Attempt: attempt, Message: res.err.Error()}
}
