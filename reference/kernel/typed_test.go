package kernel

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Reference: spec §4.1 typed failure channels (ADR 0060).

func typedFlow(h *harness, task Task) Flow {
	return func(c *Context, _ json.RawMessage) (any, error) {
		_, err := c.Execute(task, nil)
		var tf *TypedFailure
		var sf *StepFailedError
		switch {
		case errors.As(err, &tf):
			if err := c.Emit("caught", map[string]any{"channel": tf.Channel, "payload": tf.Payload}); err != nil {
				return nil, err
			}
		case errors.As(err, &sf):
			if err := c.Emit("untyped", sf.Degraded); err != nil {
				return nil, err
			}
		}
		_, err = c.Suspend(SuspendConfig{On: "g"})
		return nil, err
	}
}

func TestTypedFailureRecordedAndSubstituted(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Effects = map[string]EffectDef{"pay": {Fn: func(*EffectContext, json.RawMessage) (any, error) {
			return nil, Fail("declined", map[string]any{"code": 51})
		}, Errors: map[string]PayloadSchema{"declined": AnyPayload}}}
	})
	calls := 0
	h.rt.cfg.Effects["pay"] = EffectDef{Fn: func(*EffectContext, json.RawMessage) (any, error) {
		calls++
		return nil, Fail("declined", map[string]any{"code": 51})
	}, Errors: map[string]PayloadSchema{"declined": AnyPayload}}
	h.register("F", typedFlow(h, Task{ID: "charge", ToolID: "pay"}))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	fr := h.state("x").Frames["charge"]
	if string(fr.ErrorChannel) != `"declined"` || string(fr.ErrorPayload) != `{"code":51}` {
		failf(t, "typed/record", []string{"S41.typed.record", "S4.v1_17.typed-failure-fields"}, "frame", string(fr.ErrorChannel)+" "+string(fr.ErrorPayload), `"declined" {"code":51}`)
	}
	h.ok(h.rt.Resume(ctx, "x", "g", nil))
	if calls != 1 {
		failf(t, "typed/replay", []string{"S41.typed.replay-substitution"}, "effect invocations", calls, 1)
	}
	got := emitsOf(h.log("x"), "caught")
	if len(got) != 1 || !strings.Contains(got[0], `"code":51`) {
		failf(t, "typed/replay", []string{"S41.typed.replay-substitution"}, "caught emits", got, "one, with the recorded payload")
	}
}

func TestTypedFailureStepLevelWins(t *testing.T) {
	reject := func(json.RawMessage) error { return errors.New("effect schema rejects") }
	h := newHarness(t, func(c *Config) {
		c.Effects = map[string]EffectDef{"pay": {Fn: func(*EffectContext, json.RawMessage) (any, error) {
			return nil, Fail("declined", 1)
		}, Errors: map[string]PayloadSchema{"declined": reject}}}
	})
	h.register("F", typedFlow(h, Task{ID: "charge", ToolID: "pay", Errors: map[string]PayloadSchema{"declined": AnyPayload}}))
	h.register("G", typedFlow(h, Task{ID: "charge", ToolID: "pay"}))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	if ch := string(h.state("x").Frames["charge"].ErrorChannel); ch != `"declined"` {
		failf(t, "typed/step-wins", []string{"S41.typed.step-wins"}, "errorChannel (step map accepts)", ch, `"declined"`)
	}
	h.ok(h.rt.Start(ctx, "G", "y", nil))
	if ch := h.state("y").Frames["charge"].ErrorChannel; ch != nil {
		failf(t, "typed/step-wins", []string{"S41.typed.step-wins", "S41.typed.validate-before-append"}, "errorChannel (effect map rejects)", string(ch), "absent")
	}
	// I-KERNEL-12: a step map replaces the effect's as a whole, so a channel only the effect
	// declares is undeclared for this step and degrades loudly.
	h.register("H", typedFlow(h, Task{ID: "charge", ToolID: "pay", Errors: map[string]PayloadSchema{"limit": AnyPayload}}))
	h.ok(h.rt.Start(ctx, "H", "z", nil))
	if fr := h.state("z").Frames["charge"]; fr.ErrorChannel != nil || !strings.Contains(string(fr.Error), "undeclared-channel") {
		failf(t, "typed/step-wins", []string{"S41.typed.step-wins", "I-KERNEL-12"}, "frame of a channel only the effect declares", string(fr.Error), "untyped, undeclared-channel")
	}
}

func TestTypedFailureDegradesLoudly(t *testing.T) {
	// spec §4.1 pins the cap at 16 KiB of payload JSON: pinned here as a literal, not the
	// implementation's constant. A string of n x's is n+2 bytes of JSON.
	const cap16k = 16 << 10
	big := strings.Repeat("x", cap16k-1) // 16 385 bytes: one over
	t.Run("at-cap", func(t *testing.T) {
		h := newHarness(t, nil)
		h.register("F", typedFlow(h, Task{ID: "s", Errors: map[string]PayloadSchema{"declined": AnyPayload},
			Fn: func(*EffectContext, json.RawMessage) (any, error) {
				return nil, Fail("declined", strings.Repeat("x", cap16k-2))
			}}))
		h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
		if fr := h.state("x").Frames["s"]; len(fr.ErrorPayload) != cap16k || len(h.warns) != 0 {
			failf(t, "typed/cap", []string{"S41.typed.cap-16k"}, "payload bytes recorded, warnings", []any{len(fr.ErrorPayload), len(h.warns)}, []any{cap16k, 0})
		}
	})
	cases := []struct {
		name, want string
		fail       error
	}{
		{"over-cap", "over-cap", Fail("declined", big)},
		{"invalid-payload", "invalid-payload", Fail("declined", map[string]any{"bad": true})},
		{"undeclared-channel", "undeclared-channel", Fail("other", 1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			schema := func(p json.RawMessage) error {
				if strings.Contains(string(p), "bad") {
					return errors.New("bad")
				}
				return nil
			}
			h.register("F", typedFlow(h, Task{ID: "s", Errors: map[string]PayloadSchema{"declined": schema},
				Fn: func(*EffectContext, json.RawMessage) (any, error) { return nil, tc.fail }}))
			h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
			fr := h.state("x").Frames["s"]
			if fr.ErrorChannel != nil || !strings.Contains(string(fr.Error), tc.want) {
				failf(t, "typed/degrade", []string{"S41.typed.degrade-loudly", "S41.typed.cap-16k"}, "frame error", string(fr.Error), "untyped, naming "+tc.want)
			}
			if len(h.warns) != 1 || h.warns[0].Code != "typed-failure-degraded" {
				failf(t, "typed/degrade", []string{"S41.typed.degrade-loudly"}, "warnings", h.warns, "one typed-failure-degraded")
			}
			if got := emitsOf(h.log("x"), "untyped"); len(got) != 1 || !strings.Contains(got[0], tc.want) {
				failf(t, "typed/degrade", []string{"S41.typed.degrade-loudly"}, "flow saw", got, "a StepFailedError degraded "+tc.want)
			}
		})
	}
}

func TestUntypedFailureReexecuted(t *testing.T) {
	h, cs := newCrashHarness(t, nil)
	calls := 0
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		_, err := c.Run("s", func(*EffectContext, json.RawMessage) (any, error) {
			calls++
			if calls == 1 {
				return nil, errors.New("transient")
			}
			return "ok", nil
		}, nil)
		if err != nil {
			if err := c.Emit("saw-failure", 1); err != nil {
				return nil, err
			}
		}
		return "done", nil
	})
	ctx := testCtx(t)
	cs.arm(isType("saw-failure")) // crash right after the untyped failure was recorded
	if _, err := h.rt.Start(ctx, "F", "x", nil); !errors.Is(err, errCrash) {
		t.Fatalf("want crash, got %v", err)
	}
	h.ok(h.rt.Recover(ctx, "x"))
	if calls != 2 {
		failf(t, "typed/untyped", []string{"S41.typed.untyped-at-least-once", "I-KERNEL-70"}, "invocations", calls, 2)
	}
	if a := string(h.state("x").Frames["s"].Attempt); a != "2" {
		failf(t, "typed/untyped", []string{"I-KERNEL-3"}, "attempt", a, "2")
	}
}
