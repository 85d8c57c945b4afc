package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
)

// Reference: I-KERNEL-51, spec §5 — the execution authorizer sees every resume, resumeAs included
// (onto a parked execution it enforces every rule resume does); its refusal appends nothing.
func TestAuthorizerSeesResumeAs(t *testing.T) {
	var seen []ingress.AuthorizeRequest
	h := newHarness(t, func(c *Config) {
		c.Ingress.Authorizer = ingress.AuthorizerFunc(func(_ context.Context, r ingress.AuthorizeRequest) error {
			seen = append(seen, r)
			if r.ResumeAs {
				return errors.New("no migrations for this caller")
			}
			return nil
		})
	})
	h.register("F", gateFlow(h))
	h.register("F2", gateFlow(h))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	before := len(h.log("x"))
	_, err := h.rt.ResumeAs(ctx, "x", ResumeAsRequest{FlowID: "F2", EventType: "approve", Payload: json.RawMessage(`1`)})
	var refused *ingress.ResumeRefusedError
	if !errors.As(err, &refused) || refused.Reason != ingress.ReasonUnauthorized || len(h.log("x")) != before {
		failf(t, "resumeas/authorized", []string{"I-KERNEL-51", "S5.resumeas.parked-all-rules", "S5.ingress.refusal-appends-nothing"},
			"ResumeAs by an unauthorized caller", err, "refused unauthorized, nothing appended")
	}
	if len(seen) != 1 || !seen[0].ResumeAs || seen[0].ExecutionID != "x" {
		failf(t, "resumeas/authorized", []string{"I-KERNEL-51"}, "authorizer calls", seen, "one, marked resumeAs, for x")
	}
	// A plain resume by the same caller is authorized and answers the gate.
	if res := h.ok(h.rt.Resume(ctx, "x", "approve", json.RawMessage(`1`))); res.Status != "completed" {
		failf(t, "resume/authorized", []string{"I-KERNEL-51"}, "Resume status", res.Status, "completed")
	}
}
