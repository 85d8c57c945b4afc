package ingress

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// TestGateNamedOnlyToAuthenticated: the gate-mismatch refusal names the gate only to a caller the
// authenticator accepted. Reference: spec §5, shape gate paragraph.
func TestGateNamedOnlyToAuthenticated(t *testing.T) {
	w := mustWorld(t, started, parkApprove)
	req := Request{EventType: "reject", Payload: raw(`{}`)}
	_, err := w.eval(t, req, Options{})
	var r *ResumeRefusedError
	if !errors.As(err, &r) || r.Reason != ReasonGateMismatch || r.Gate != "" || containsGate(err.Error()) {
		t.Errorf("ingress/gate-named-authenticated [S5.ingress.gate-match]: Evaluate(unauthenticated reject) = %v, want gate-mismatch naming no gate", err)
	}
	_, err = w.eval(t, req, Options{Authenticator: allowAll})
	if !errors.As(err, &r) || r.Reason != ReasonGateMismatch || r.Gate != "approve" || !containsGate(err.Error()) {
		t.Errorf("ingress/gate-named-authenticated [S5.ingress.gate-match]: Evaluate(authenticated reject) = %v, want gate-mismatch naming %q", err, "approve")
	}
}

func containsGate(s string) bool { return strings.Contains(s, `"approve"`) }

// TestOrderIdentityIngressShape: the authenticator sees exactly what the caller signed (raw
// payload, before the shape gate) and runs first; the ingress rules run before the shape gate;
// a refusal at any stage has no plan. Reference: spec §5.
func TestOrderIdentityIngressShape(t *testing.T) {
	w := mustWorld(t, started, parkApprove)
	var seen []ResumeEvent
	auth := AuthenticatorFunc(func(_ context.Context, ev ResumeEvent) (Approval, error) {
		seen = append(seen, ev)
		return Approval{By: "alice"}, nil
	})
	parsed := 0
	schemas := map[string]Parser{
		"approve": func(p json.RawMessage) (json.RawMessage, error) { parsed++; return raw(`{"ok":true,"parsed":1}`), nil },
		"reject":  func(p json.RawMessage) (json.RawMessage, error) { parsed++; return nil, errors.New("never valid") },
	}
	p, err := w.eval(t, Request{EventType: "approve", Payload: raw(`{"ok":true}`)}, Options{Authenticator: auth, ResumeSchemas: schemas})
	if err != nil {
		t.Fatalf("ingress/order [S5.order.identity-ingress-shape]: Evaluate(approve) = %v, want accepted", err)
	}
	if len(seen) != 1 || string(seen[0].Payload) != `{"ok":true}` {
		t.Errorf("ingress/order [S5.order.identity-ingress-shape]: authenticator saw %+v, want the raw payload {\"ok\":true}", seen)
	}
	want := []string{"APPROVAL_GRANTED", "approve", "EXECUTION_RESUMED"}
	if diff := cmp.Diff(want, p.Types()); diff != "" {
		t.Errorf("ingress/order [S5.auth.approval-recorded]: Evaluate(approve).Types (-want +got):\n%s", diff)
	}
	if string(p.Appends[0].Payload) != `{"by":"alice","eventType":"approve"}` || string(p.Appends[2].Payload) != `{"ok":true,"parsed":1}` {
		t.Errorf("ingress/order [S5.schema.record-parsed S5.auth.approval-recorded]: plan payloads = %s / %s", p.Appends[0].Payload, p.Appends[2].Payload)
	}
	// Ingress before shape: "reject" has a failing schema, but the gate mismatch refuses first.
	parsed = 0
	_, err = w.eval(t, Request{EventType: "reject", Payload: raw(`{}`)}, Options{Authenticator: auth, ResumeSchemas: schemas})
	if reasonOf(err) != ReasonGateMismatch || parsed != 0 {
		t.Errorf("ingress/order [S5.order.identity-ingress-shape]: Evaluate(reject) = %v after %d parses, want gate-mismatch before any parse", err, parsed)
	}
	// Identity before ingress: a rejecting authenticator refuses even a kernel type.
	deny := AuthenticatorFunc(func(context.Context, ResumeEvent) (Approval, error) { return Approval{}, errors.New("unsigned") })
	if _, err := w.eval(t, Request{EventType: "STEP_COMPLETED", Payload: raw(`{}`)}, Options{Authenticator: deny}); reasonOf(err) != ReasonAuthenticatorRejected {
		t.Errorf("ingress/order [S5.order.identity-ingress-shape S5.auth.rejected-not-logged]: Evaluate(denied STEP_COMPLETED) = %v, want authenticator-rejected", err)
	}
	// The authorizer runs after the authenticator and sees whom it authenticated.
	var ar AuthorizeRequest
	z := AuthorizerFunc(func(_ context.Context, r AuthorizeRequest) error { ar = r; return errors.New("not yours") })
	if _, err := w.eval(t, Request{EventType: "approve", Payload: raw(`{}`)}, Options{Authenticator: auth, Authorizer: z}); reasonOf(err) != ReasonUnauthorized || ar.By != "alice" || !ar.Authenticated {
		t.Errorf("ingress/order [S5.resumeas.parked-all-rules]: Evaluate(unauthorized) = %v (authorizer saw %+v), want unauthorized after authenticating alice", err, ar)
	}
}

// TestSchemaAbsentUnchanged: no options, an empty map, or a map without the gate's entry plan the
// same envelopes (G2); the shape gate refuses with nothing planned and the execution stays parked.
// Reference: spec §5, §1 G2.
func TestSchemaAbsentUnchanged(t *testing.T) {
	w := mustWorld(t, started, parkApprove)
	req := Request{EventType: "approve", Payload: raw(`{"ok":1}`)}
	base, err := w.eval(t, req, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{ResumeSchemas: map[string]Parser{}}, {ResumeSchemas: map[string]Parser{"other": func(json.RawMessage) (json.RawMessage, error) { return nil, errors.New("x") }}}} {
		p, err := w.eval(t, req, o)
		if err != nil || !cmp.Equal(base, p) {
			t.Errorf("ingress/schema-absent [S5.schema.absent-unchanged S1.G2.unwired-byte-identical]: Evaluate with %d unrelated schemas = %+v, %v, want %+v", len(o.ResumeSchemas), p, err, base)
		}
	}
	bad := Options{ResumeSchemas: map[string]Parser{"approve": func(json.RawMessage) (json.RawMessage, error) { return nil, errors.New("ok must be boolean") }}}
	p, err := w.eval(t, req, bad)
	var v *ResumePayloadValidationError
	if !errors.As(err, &v) || len(p.Appends) != 0 {
		t.Fatalf("ingress/schema-absent [S5.schema.refuse-still-parked]: Evaluate(bad shape) = %+v, %v, want ResumePayloadValidationError and no plan", p, err)
	}
	if p, err := w.eval(t, req, Options{}); err != nil || w.then(t, p).Status != fold.StatusRunning {
		t.Errorf("ingress/schema-absent [S5.schema.refuse-still-parked]: after a shape refusal the execution is not resumable: %v", err)
	}
}
