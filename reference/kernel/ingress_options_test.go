package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
)

// Reference: spec §5 — with an authenticator wired, its verdict is recorded as APPROVAL_GRANTED
// before the answer; a rejection appends nothing.
func TestResumeAuthenticatorRecordedOrRejected(t *testing.T) {
	auth := ingress.AuthenticatorFunc(func(_ context.Context, ev ingress.ResumeEvent) (ingress.Approval, error) {
		if string(ev.Payload) == `"forged"` {
			return ingress.Approval{}, errors.New("bad signature")
		}
		return ingress.Approval{By: "ops"}, nil
	})
	h := newHarness(t, func(c *Config) { c.Ingress = IngressOptions{Authenticator: auth} })
	h.register("F", gateFlow(h))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	n := len(h.log("x"))
	_, err := h.rt.Resume(ctx, "x", "approve", json.RawMessage(`"forged"`))
	var refused *ingress.ResumeRefusedError
	if !errors.As(err, &refused) || refused.Reason != ingress.ReasonAuthenticatorRejected || len(h.log("x")) != n {
		failf(t, "auth/rejected", []string{"S5.auth.rejected-not-logged"}, "Resume(forged)", err, "authenticator-rejected, nothing appended")
	}
	h.ok(h.rt.Resume(ctx, "x", "approve", json.RawMessage(`"signed"`)))
	evs := h.log("x")
	if evs[n].EventType != "APPROVAL_GRANTED" || string(evs[n].Payload) != `{"by":"ops","eventType":"approve"}` {
		failf(t, "auth/recorded", []string{"S5.auth.approval-recorded", "S5.order.identity-ingress-shape"}, "first appended", evs[n].EventType+" "+string(evs[n].Payload), "APPROVAL_GRANTED by ops")
	}
}

// Reference: spec §3 — the digest reads the canonical form: the same value written with other key
// order or number spelling is the same emit, and is served.
func TestEmitDigestCanonicalForm(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		if err := c.Emit("v", json.RawMessage(`{"b":1.0,"a":[2e0]}`)); err != nil {
			return nil, err
		}
		return c.Suspend(SuspendConfig{On: "g"})
	})
	h.register("F2", func(c *Context, _ json.RawMessage) (any, error) {
		if err := c.Emit("v", map[string]any{"a": []int{2}, "b": 1}); err != nil {
			return nil, err
		}
		return c.Suspend(SuspendConfig{On: "g"})
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	h.ok(h.rt.ResumeAs(ctx, "x", ResumeAsRequest{FlowID: "F2", EventType: "g", Payload: json.RawMessage(`1`)}))
	if got := emitsOf(h.log("x"), "v"); len(got) != 1 {
		failf(t, "emit/canonical", []string{"S3.emit.canonical-form", "S3.emit.identity"}, "emits of v", got, "one: the re-run's emit is the same canonical value")
	}
}
