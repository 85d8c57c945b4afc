package ingress

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// TestResumeAsParked: onto a parked execution resumeAs enforces every rule with the TARGET flow's
// schemas, records EXECUTION_MIGRATED with the transform's result, and later folds the migrated
// input. Reference: spec §5 resumeAs bullets.
func TestResumeAsParked(t *testing.T) {
	w := mustWorld(t, started, parkApprove)
	target := &ResumeAs{FlowID: "f2", FlowHash: "sha256:bb", CodeHash: "c2",
		ResumeSchemas: map[string]Parser{"approve": func(json.RawMessage) (json.RawMessage, error) { return raw(`{"v":2}`), nil }},
		Transform:     func(in json.RawMessage) (json.RawMessage, error) { return raw(`{"n":2}`), nil },
	}
	// The runtime's own (source flow) schemas must not be used.
	opts := Options{ResumeSchemas: map[string]Parser{"approve": func(json.RawMessage) (json.RawMessage, error) { return nil, errors.New("old schema") }}}
	p, err := w.eval(t, Request{EventType: "approve", Payload: raw(`{}`), As: target}, opts)
	if err != nil {
		t.Fatalf("ingress/resumeas-parked [S5.schema.resumeas-target]: Evaluate = %v, want accepted against the target's schema", err)
	}
	if diff := cmp.Diff([]string{"EXECUTION_MIGRATED", "approve", "EXECUTION_RESUMED"}, p.Types()); diff != "" {
		t.Errorf("ingress/resumeas-parked [S5.resumeas.parked-all-rules]: Types (-want +got):\n%s", diff)
	}
	wantMig := `{"fromFlowHash":"sha256:aa","migratedInput":{"n":2},"toCodeHash":"c2","toFlowHash":"sha256:bb"}`
	if string(p.Appends[0].Payload) != wantMig || string(p.Answer) != `{"v":2}` {
		t.Errorf("ingress/resumeas-parked [S5.resumeas.transform-recorded]: migrated %s answer %s, want %s and {\"v\":2}", p.Appends[0].Payload, p.Answer, wantMig)
	}
	st := w.then(t, p)
	if got := string(st.Variables.Values[fold.VarInput]); got != `{"n":2}` || st.Status != fold.StatusRunning || len(st.Variables.ResumePayloads) != 1 {
		t.Errorf("ingress/resumeas-parked [S5.resumeas.transform-recorded]: after plan _input=%s status=%s entries=%d, want {\"n\":2} running 1", got, st.Status, len(st.Variables.ResumePayloads))
	}
	// Every rule: the recorded gate name, and no event at all is a mismatch.
	for _, req := range []Request{{EventType: "reject", Payload: raw(`{}`), As: target}, {As: target}, {EventType: "STEP_COMPLETED", As: target}} {
		if p, err := w.eval(t, req, Options{}); err == nil || len(p.Appends) != 0 {
			t.Errorf("ingress/resumeas-parked [S5.resumeas.parked-all-rules]: Evaluate(resumeAs %q onto parked) = %v, want refused", req.EventType, p.Types())
		}
	}
	// A failing transform refuses with nothing planned.
	bad := &ResumeAs{Transform: func(json.RawMessage) (json.RawMessage, error) { return nil, errors.New("cannot migrate") }}
	if p, err := w.eval(t, Request{EventType: "approve", Payload: raw(`{}`), As: bad}, Options{}); reasonOf(err) != ReasonTransformFailed || len(p.Appends) != 0 {
		t.Errorf("ingress/resumeas-parked [S5.resumeas.transform-fail-refuses]: Evaluate(failing transform) = %v, %v, want transform-failed", p.Types(), err)
	}
	junk := &ResumeAs{Transform: func(json.RawMessage) (json.RawMessage, error) { return raw(`{`), nil }}
	if _, err := w.eval(t, Request{EventType: "approve", Payload: raw(`{}`), As: junk}, Options{}); reasonOf(err) != ReasonTransformFailed {
		t.Errorf("ingress/resumeas-parked [S5.resumeas.transform-fail-refuses]: Evaluate(non-JSON transform) = %v, want transform-failed", err)
	}
}

// TestResumeAsUnparked: onto a crashed or terminal execution only the kernel-namespace rule
// applies; a crashed one records no EXECUTION_RESUMED, a terminal one a null one. Reference: spec §5.
func TestResumeAsUnparked(t *testing.T) {
	deny := AuthenticatorFunc(func(_ context.Context, _ ResumeEvent) (Approval, error) { return Approval{}, errors.New("never") })
	cases := []struct {
		name  string
		log   []ev
		req   Request
		want  string
		types []string
	}{
		{"crashed-no-event", []ev{started, stepA}, Request{As: &ResumeAs{}}, "", []string{"EXECUTION_MIGRATED"}},
		{"crashed-event", []ev{started, stepA}, Request{As: &ResumeAs{}, EventType: "anything", Payload: raw(`1`)}, "", []string{"EXECUTION_MIGRATED", "anything"}},
		{"crashed-kernel", []ev{started, stepA}, Request{As: &ResumeAs{}, EventType: "EXECUTION_RECOVERED"}, ReasonKernelNamespace, nil},
		{"crashed-timer", []ev{started, stepA}, Request{As: &ResumeAs{}, EventType: "TIMER_FIRED"}, ReasonTimerWithoutWakeAt, nil},
		{"crashed-discard", []ev{started, stepA}, Request{As: &ResumeAs{}, DiscardLegacyAnswers: &DiscardLegacyAnswers{StepID: "h", Count: 1}}, ReasonDiscardNotApplicable, nil},
		{"pending", nil, Request{As: &ResumeAs{}}, "", []string{"EXECUTION_MIGRATED"}},
		{"failed", []ev{started, {"EXECUTION_FAILED", `{"error":"x"}`, ""}}, Request{As: &ResumeAs{}}, "", []string{"EXECUTION_MIGRATED", "EXECUTION_RESUMED"}},
		{"failed-gate-name-ignored", []ev{started, {"EXECUTION_FAILED", `{"error":"x"}`, ""}}, Request{As: &ResumeAs{}, EventType: "whatever", Payload: raw(`null`)}, "", []string{"EXECUTION_MIGRATED", "whatever", "EXECUTION_RESUMED"}},
		{"completed-kernel", []ev{started, {"EXECUTION_COMPLETED", `{"output":1}`, ""}}, Request{As: &ResumeAs{}, EventType: "APPROVAL_GRANTED"}, ReasonKernelNamespace, nil},
	}
	for _, c := range cases {
		w := mustWorld(t, c.log...)
		// The authenticator is not consulted (namespace rule only): a denying one changes nothing.
		p, err := w.eval(t, c.req, Options{Authenticator: deny})
		if got := reasonOf(err); got != c.want {
			t.Errorf("ingress/resumeas-unparked [S5.resumeas.crashed-namespace-only]: Evaluate(%s) = %q (%v), want %q", c.name, got, err, c.want)
			continue
		}
		if err != nil {
			continue
		}
		if diff := cmp.Diff(c.types, p.Types()); diff != "" {
			t.Errorf("ingress/resumeas-unparked [S5.ingress.redrive-no-resumed S5.ingress.resumeas-terminal-null]: Evaluate(%s).Types (-want +got):\n%s", c.name, diff)
		}
		before := len(w.st.Variables.ResumePayloads)
		st := w.then(t, p)
		if len(st.Variables.ResumePayloads) != before || (terminal(w.st.Status) && st.Status != fold.StatusRunning) {
			t.Errorf("ingress/resumeas-unparked [S5.ingress.resumeas-terminal-null S5.ingress.one-entry-per-suspend]: after %s status=%s entries %d->%d, want running and no new entry", c.name, st.Status, before, len(st.Variables.ResumePayloads))
		}
	}
}
