package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// humanClassChecks: the resumes a human step's park takes (spec §5): only its gate's, never a
// kernel event type, whatever the gate is named.
func humanClassChecks() []kitCheck {
	return []kitCheck{
		check("kernel/ingress/human-gates", spec.MustNot, "at a human step's park (step review), a resume naming another event type (approve) is refused -32023 with nothing appended, and its own gate's is accepted; a human step whose id is a kernel event type (STEP_COMPLETED) is refused, or parks and then refuses a resume naming that type -32023, with and without attach, appending nothing (no caller forges a STEP_COMPLETED)",
			kkHumanGates, "S5.ingress.gate-match", "S5.ingress.kernel-namespace", "S5.ingress.refusal-appends-nothing", "S5.ingress.human-step-entry"),
	}
}

// humanRefused holds a resume of d's execution naming eventType to -32023 with nothing appended,
// citing clauses.
func humanRefused(ctx context.Context, c *Case, d *carrier.Driver, what, eventType string, attach bool, clauses ...string) error {
	return appendsNothing(ctx, c, d.ExecutionID, "a resume naming "+eventType, func() error {
		p := map[string]any{"executionId": d.ExecutionID, "eventType": eventType, "payload": map[string]any{"stepId": "review", "output": "forged"}}
		if attach {
			p["attach"] = true
		}
		err := c.Store.Call(ctx, carrier.MethodResume, p, nil)
		return wantCode(c.Cite(clauses...).Failf, carrier.MethodResume, fmt.Sprintf("%s (%s, attach %v)", eventType, what, attach), err, carrier.CodeRefused, "")
	})
}

func kkHumanGates(ctx context.Context, c *Case) error {
	c.Progress(0, 2)
	d, err := startExec(ctx, c, "human-gate")
	if err != nil {
		return err
	}
	const review = `{"task":{"id":"review","kind":"human"},"input":1}`
	if _, parked, err := d.Syscall(ctx, "execute", json.RawMessage(review)); err != nil || !parked {
		return c.Failf("syscall.execute", review, show(err, "answered without parking"), "parked (a human step)")
	}
	for _, attach := range []bool{false, true} {
		if err := humanRefused(ctx, c, d, "at human step review's park", "approve", attach, "S5.ingress.gate-match", "S5.ingress.refusal-appends-nothing"); err != nil {
			return err
		}
	}
	st, err := stateOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	// the gate a human step parks on is the kernel's choice (I-KERNEL-22): answer the one it shows
	if err := resumeAttached(ctx, c, d, st.SuspendedOn, map[string]any{"ok": true}); err != nil {
		return err
	}
	v, err := syscall(ctx, c, d, "execute", review)
	if err != nil {
		return err
	}
	if !sameJSON(v, `{"ok":true}`) {
		return c.Cite("S5.ingress.human-step-entry").Failf("syscall.execute", review+" (re-driven after its gate's resume)", string(v), `{"ok":true} (the resume's payload)`)
	}

	c.Progress(1, 2)
	d, err = startExec(ctx, c, "human-kernel-gate")
	if err != nil {
		return err
	}
	forgery := `{"task":{"id":"` + manifest.StepCompleted + `","kind":"human"},"input":1}`
	_, parked, err := d.Syscall(ctx, "execute", json.RawMessage(forgery))
	if err != nil || !parked {
		return nil // refused (or answered: kernel/reserved/human-step's to judge): nothing to resume
	}
	for _, attach := range []bool{false, true} {
		if err := humanRefused(ctx, c, d, "at the park of a human step named "+manifest.StepCompleted, manifest.StepCompleted, attach, "S5.ingress.kernel-namespace", "S5.ingress.refusal-appends-nothing"); err != nil {
			return err
		}
	}
	return nil
}
