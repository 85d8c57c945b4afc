package kernel

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// Reference: spec §5 — suspend records its config; resume is routed by execution id and never
// matches on correlationKey, which is optional.
func TestSuspendConfigAndRouting(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		a, err := c.Suspend(SuspendConfig{On: "approve", Timeout: 90 * time.Second, WakeAt: 5_000, CorrelationKey: "order-7"})
		if err != nil {
			return nil, err
		}
		b, err := c.Suspend(SuspendConfig{On: "confirm"}) // no correlationKey: accepted
		return []json.RawMessage{a, b}, err
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	h.ok(h.rt.Start(ctx, "F", "y", nil))
	if got := string(h.state("x").Variables.Values["_suspendedOn"]); got != `{"correlationKey":"order-7","on":"approve","timeout":90000,"wakeAt":5000}` {
		failf(t, "suspend/config", []string{"S5.suspend.config"}, "_suspendedOn", got, "on, timeout, wakeAt and correlationKey recorded")
	}
	h.ok(h.rt.Resume(ctx, "y", "approve", json.RawMessage(`"for-y"`)))
	if st := h.state("x"); st.Status != fold.StatusSuspended || len(st.Variables.ResumePayloads) != 0 {
		failf(t, "suspend/routing", []string{"S5.resume.by-execution-id"}, "x after resuming y", []any{st.Status, len(st.Variables.ResumePayloads)},
			"still suspended on its first gate, no answer recorded")
	}
	res := h.ok(h.rt.Resume(ctx, "y", "confirm", json.RawMessage(`2`)))
	if string(res.Output) != `["for-y",2]` {
		failf(t, "suspend/routing", []string{"S5.resume.by-execution-id", "S5.resume.correlation-optional", "S5.resume.correlation-not-required"}, "y output", string(res.Output), `["for-y",2]`)
	}
}

// Reference: I-KERNEL-6, I-KERNEL-21 — parks inside parallel branches and unanswerable gates are
// refused with nothing appended.
func TestSuspendRefusals(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Features = Features{Receive: true, ContinueAsNew: true} })
	var errs []error
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		_, err := c.Parallel(
			func(c *Context) (any, error) {
				_, err := c.Suspend(SuspendConfig{On: "g"})
				errs = append(errs, err)
				return nil, nil
			},
			func(c *Context) (any, error) { return nil, nil },
		)
		if err != nil {
			return nil, err
		}
		_, err = c.Parallel(func(c *Context) (any, error) { _, e := c.Receive("t"); errs = append(errs, e); return nil, nil },
			func(c *Context) (any, error) { return nil, nil })
		if err != nil {
			return nil, err
		}
		for _, on := range []string{"", "__loom_x", "STEP_COMPLETED"} {
			_, err := c.Suspend(SuspendConfig{On: on})
			errs = append(errs, err)
		}
		return nil, nil
	})
	h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
	var se *SyscallError
	for i, err := range errs {
		if !errors.As(err, &se) {
			failf(t, "suspend/refused", []string{"I-KERNEL-6", "I-KERNEL-21"}, "refusal "+itoa(i), err, "*SyscallError")
		}
	}
	if len(errs) != 5 || h.state("x").Status != fold.StatusCompleted {
		failf(t, "suspend/refused", []string{"I-KERNEL-6", "I-KERNEL-21"}, "refusals, status", []any{len(errs), h.state("x").Status}, "5, completed (nothing parked)")
	}
}

// Reference: spec §4.1 — a live re-invocation of the same step id is served (typed failure and
// completion alike); only a new id runs the effect again.
func TestSameStepIDServedLive(t *testing.T) {
	h := newHarness(t, nil)
	calls := 0
	fail := func(*EffectContext, json.RawMessage) (any, error) { calls++; return nil, Fail("declined", calls) }
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		var payloads []any
		for _, id := range []string{"pay", "pay", "pay-retry-1"} {
			_, err := c.Execute(Task{ID: id, Fn: fail, Errors: map[string]PayloadSchema{"declined": AnyPayload}}, nil)
			var tf *TypedFailure
			if !errors.As(err, &tf) {
				return nil, err
			}
			payloads = append(payloads, tf.Payload)
		}
		return payloads, nil
	})
	res := h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
	if string(res.Output) != `[1,1,2]` || calls != 2 {
		failf(t, "typed/same-id", []string{"S41.typed.same-id-live"}, "payloads, calls", []any{string(res.Output), calls}, "[1,1,2], 2")
	}
}

// Reference: I-KERNEL-19 — the same content inside a parallel and after it in one segment may be
// appended again by a later re-run, but is never lost.
func TestParallelDuplicateContentNeverLost(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		if _, err := c.Parallel(
			func(c *Context) (any, error) { return nil, c.Emit("x", 1) },
			func(c *Context) (any, error) { return c.Run("s", h.effect("s", 1), nil) },
		); err != nil {
			return nil, err
		}
		if err := c.Emit("x", 1); err != nil {
			return nil, err
		}
		if _, err := c.Suspend(SuspendConfig{On: "g1"}); err != nil {
			return nil, err
		}
		return c.Suspend(SuspendConfig{On: "g2"})
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	for _, g := range []string{"g1", "g2"} {
		h.ok(h.rt.Resume(ctx, "x", g, nil))
		if n := len(emitsOf(h.log("x"), "x")); n < 2 {
			failf(t, "emit/residual-parallel", []string{"I-KERNEL-19", "S3.emit.residual"}, "copies after resume "+g, n, ">= 2 (never lost)")
		}
	}
}
