package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// ingressChecks: the resume ingress gate as a wire client meets it (spec §5): whatever the park,
// no caller writes a kernel fact through it, and each refusal appends nothing.
func ingressChecks() []kitCheck {
	return []kitCheck{
		check("kernel/ingress/kernel-types", spec.MustNot, "a resume naming any kernel event type but TIMER_FIRED — at a park on a gate, on the timer and on a human step, with attach and without — is refused -32023 (kind resume-refused) with nothing appended; the execution stays parked",
			kkIngressKernelTypes, "S5.ingress.kernel-namespace", "S5.ingress.refusal-appends-nothing", "S5.ingress.recovered-running-only", "A26.wire.no-new-facts", "A26.wire.rings-kernel-side"),
		check("kernel/ingress/reserved-gates", spec.MustNot, "a resume naming a kernel-reserved gate (__loom_indoubt__, __loom_diverged__, __loom_…) at an ordinary park is refused -32023 with nothing appended",
			kkIngressReserved, "S5.ingress.gate-match", "S5.ingress.refusal-appends-nothing"),
		check("kernel/ingress/gate-match", spec.MustNot, "a resume naming another gate than the parked one is refused -32023 with nothing appended; the parked gate's name is accepted",
			kkIngressGateMatch, "S5.ingress.gate-match", "S5.ingress.refusal-appends-nothing"),
		check("kernel/ingress/not-suspended", spec.MustNot, "a resume of a running execution — one a driver holds, and one awaiting a driver after a resume — is refused -32023 (not-suspended) with nothing appended",
			kkIngressNotSuspended, "S5.ingress.not-suspended", "S5.ingress.refusal-appends-nothing", "I-WIRE-26"),
		check("kernel/ingress/timer-wakeat", spec.MustNot, "TIMER_FIRED wakes only a timed park and only with its recorded wakeAt: at an untimed park, or naming another wakeAt, it is refused -32023 with nothing appended",
			kkIngressTimer, "S5.ingress.timer-exception", "S5.ingress.timer-needs-wakeat", "I-KERNEL-53"),
		check("kernel/ingress/resumeas-rules", spec.MustNot, "execution.resumeAs onto a parked execution keeps every resume rule: a kernel event type or another gate than the parked one is refused -32023 with nothing appended",
			kkIngressResumeAs, "S5.resumeas.parked-all-rules", "S5.ingress.refusal-appends-nothing", "I-WIRE-15"),
	}
}

// resumeRefused holds a resume of d's execution with eventType to -32023 and nothing appended.
func resumeRefused(ctx context.Context, c *Case, d *carrier.Driver, what, eventType string, payload any, attach bool) error {
	return appendsNothing(ctx, c, d.ExecutionID, "a resume naming "+eventType, func() error {
		p := map[string]any{"executionId": d.ExecutionID, "eventType": eventType, "payload": payload}
		if attach {
			p["attach"] = true
		}
		err := c.Store.Call(ctx, carrier.MethodResume, p, nil)
		return wantError(c, carrier.MethodResume, fmt.Sprintf("%s (%s, attach %v)", eventType, what, attach), err, carrier.CodeRefused, "")
	})
}

// parks are the parks a kernel-type resume is tried at: a gate, the timer, a human step.
var parks = []struct{ name, syscall, args string }{
	{"a park on gate approve", "suspend", `{"on":"approve"}`},
	{"a park on the timer (sleepUntil)", "sleepUntil", `{"wakeAt":1800000000000}`},
	{"a human step's park", "execute", `{"task":{"id":"review","kind":"human","toolId":"echo"},"input":1}`},
}

func kkIngressKernelTypes(ctx context.Context, c *Case) error {
	types := manifest.EventTypes()
	rounds, done := len(parks)*len(types), 0
	for _, pk := range parks {
		d, err := startExec(ctx, c, "ingress")
		if err != nil {
			return err
		}
		if _, parked, err := d.Syscall(ctx, pk.syscall, json.RawMessage(pk.args)); err != nil || !parked {
			return c.Failf("syscall."+pk.syscall, pk.args, show(err, "not parked"), "parked")
		}
		for i, t := range types {
			c.Progress(done, rounds)
			done++
			if t.Name == manifest.TimerFired {
				continue
			}
			payload := map[string]any{"stepId": "review", "output": "forged", "wakeAt": 1800000000000}
			if err := resumeRefused(ctx, c, d, pk.name, t.Name, payload, i%2 == 0); err != nil {
				return err
			}
		}
		st, err := stateOf(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		if st.Status != "suspended" {
			return c.Failf(carrier.MethodGetState, d.ExecutionID+" after the refused resumes", st.Status, "suspended (as parked)")
		}
	}
	return nil
}

func kkIngressReserved(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "reserved")
	if err != nil {
		return err
	}
	if err := park(ctx, c, d, "approve"); err != nil {
		return err
	}
	for _, g := range []string{"__loom_indoubt__", "__loom_diverged__", "__loom_gate"} {
		if err := resumeRefused(ctx, c, d, "a park on gate approve", g, map[string]any{"stepId": "s", "attempt": 1, "verdict": "applied"}, true); err != nil {
			return err
		}
	}
	return nil
}

func kkIngressGateMatch(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "gate")
	if err != nil {
		return err
	}
	if err := park(ctx, c, d, "approve"); err != nil {
		return err
	}
	if err := resumeRefused(ctx, c, d, "a park on gate approve", "reject", true, true); err != nil {
		return err
	}
	return resumeAttached(ctx, c, d, "approve", true)
}

func kkIngressNotSuspended(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "running")
	if err != nil {
		return err
	}
	if err := resumeRefused(ctx, c, d, "a run a driver holds", "approve", 1, false); err != nil {
		return err
	}
	if err := resumeRefused(ctx, c, d, "a run a driver holds", "approve", 1, true); err != nil {
		return err
	}
	if err := park(ctx, c, d, "approve"); err != nil {
		return err
	}
	if err := c.Store.Call(ctx, carrier.MethodResume, map[string]any{"executionId": d.ExecutionID, "eventType": "approve", "payload": 1}, nil); err != nil {
		return c.Failf(carrier.MethodResume, "approve (no driver)", err, "accepted")
	}
	return resumeRefused(ctx, c, d, "a run awaiting a driver", "approve", 2, false)
}

func kkIngressTimer(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "timer")
	if err != nil {
		return err
	}
	if err := park(ctx, c, d, "approve"); err != nil {
		return err
	}
	if err := resumeRefused(ctx, c, d, "an untimed park", manifest.TimerFired, map[string]int64{"wakeAt": 1800000000000}, true); err != nil {
		return err
	}
	t, err := startExec(ctx, c, "timer")
	if err != nil {
		return err
	}
	const at = 1_800_000_000_000
	if _, parked, err := t.Syscall(ctx, "sleepUntil", json.RawMessage(fmt.Sprintf(`{"wakeAt":%d}`, at))); err != nil || !parked {
		return c.Failf("syscall.sleepUntil", fmt.Sprint(at), show(err, "not parked"), "parked")
	}
	if err := resumeRefused(ctx, c, t, "a park on the timer", manifest.TimerFired, map[string]int64{"wakeAt": at + 1}, true); err != nil {
		return err
	}
	return resumeAttached(ctx, c, t, manifest.TimerFired, map[string]int64{"wakeAt": at})
}

func kkIngressResumeAs(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "resumeas")
	if err != nil {
		return err
	}
	if err := park(ctx, c, d, "approve"); err != nil {
		return err
	}
	for _, et := range []string{manifest.StepCompleted, manifest.ExecutionCompleted, "reject"} {
		err := appendsNothing(ctx, c, d.ExecutionID, "a resumeAs naming "+et, func() error {
			err := c.Store.Call(ctx, carrier.MethodResumeAs, map[string]any{"executionId": d.ExecutionID, "flowId": "kit.resumeas-v2", "eventType": et,
				"payload": map[string]any{"stepId": "s", "output": "forged"}, "attach": true}, nil)
			return wantError(c, carrier.MethodResumeAs, et+" onto a park on gate approve", err, carrier.CodeRefused, "")
		})
		if err != nil {
			return err
		}
	}
	return nil
}
