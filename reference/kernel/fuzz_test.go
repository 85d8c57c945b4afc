package kernel

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
)

// Reference: DESIGN §5 bad input — any resume (event type, payload bytes) on a parked execution
// either is refused with nothing appended or is accepted as the gate's answer; never a panic.
func FuzzResumeInput(f *testing.F) {
	f.Add("approve", []byte(`{"ok":true}`))
	f.Add("approve", []byte(`{"unterminated`))
	f.Add("STEP_COMPLETED", []byte(`{"stepId":"A","output":1}`))
	f.Add("TIMER_FIRED", []byte(`null`))
	f.Add("__loom_indoubt__", []byte(`{"stepId":"A","attempt":1,"verdict":"applied"}`))
	f.Add("", []byte(``))
	f.Fuzz(func(t *testing.T, eventType string, payload []byte) {
		h := newHarness(t, nil)
		h.register("F", gateFlow(h))
		ctx := testCtx(t)
		h.ok(h.rt.Start(ctx, "F", "x", nil))
		n := len(h.log("x"))
		res, err := h.rt.Resume(ctx, "x", eventType, json.RawMessage(payload))
		if err != nil {
			if len(h.log("x")) != n {
				t.Fatalf("kernel/fuzz-resume [S5.ingress.refusal-appends-nothing]: Resume(%q, %q) = %v and appended %d envelopes", eventType, payload, err, len(h.log("x"))-n)
			}
			var refused *ingress.ResumeRefusedError
			var invalid *ingress.ResumePayloadValidationError
			var input *ingress.InputError
			if !errors.As(err, &refused) && !errors.As(err, &invalid) && !errors.As(err, &input) {
				t.Fatalf("kernel/fuzz-resume: Resume(%q, %q) = %T %v, want a typed refusal", eventType, payload, err, err)
			}
			return
		}
		if eventType != "approve" || res.Status != "completed" {
			t.Fatalf("kernel/fuzz-resume [S5.ingress.gate-match]: Resume(%q, %q) accepted with status %s", eventType, payload, res.Status)
		}
	})
}

// Reference: spec §2 — Call with any name and argument bytes returns a typed error or a result;
// never a panic or a hang.
func FuzzCall(f *testing.F) {
	for _, s := range []struct{ name, args string }{
		{"emit", `{"eventType":"x","payload":1}`}, {"decide", `{"id":"d","choice":1}`}, {"fork", `{}`},
		{"suspend", `{"on":""}`}, {"run", `{"stepId":"s","toolId":"t"}`}, {"receive", `{"topic":"t"}`}, {"emit", `{`},
	} {
		f.Add(s.name, []byte(s.args))
	}
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		h := newHarness(t, func(c *Config) {
			c.Effects = map[string]EffectDef{"t": {Fn: func(*EffectContext, json.RawMessage) (any, error) { return 1, nil }}}
		})
		var callErr error
		h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
			_, callErr = c.Call(name, args)
			return nil, nil
		})
		res, err := h.rt.Start(testCtx(t), "F", "x", nil)
		if err != nil {
			t.Fatalf("kernel/fuzz-call: Start = %v (Call(%q, %q) must not crash the run)", err, name, args)
		}
		_ = res
		// spec §2: a syscall is available iff it is listed (and its feature flag is on).
		s, listed := manifest.LookupSyscall(name)
		available := listed && h.cfg.Features.enabled(s.Feature)
		var unknown *UnknownSyscallError
		var disabled *SyscallDisabledError
		switch {
		case !listed && !errors.As(callErr, &unknown):
			t.Fatalf("kernel/fuzz-call [S2.syscalls.available-iff-listed]: Call(%q) = %v, want *UnknownSyscallError (not in the table)", name, callErr)
		case listed && !available && !errors.As(callErr, &disabled):
			t.Fatalf("kernel/fuzz-call [S2.syscalls.available-iff-listed S2.syscalls.wave2-flagged]: Call(%q) = %v, want *SyscallDisabledError (flag off)", name, callErr)
		case available && (errors.As(callErr, &unknown) || errors.As(callErr, &disabled)):
			t.Fatalf("kernel/fuzz-call [S2.syscalls.available-iff-listed]: Call(%q) = %v, want it available (listed, flag on)", name, callErr)
		}
	})
}
