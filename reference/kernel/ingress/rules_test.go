package ingress

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

var inDoubtLog = []ev{started,
	{"STEP_STARTED", `{"stepId":"pay","attempt":2,"input":{}}`, ""},
	kev("EFFECT_INDOUBT", `{"stepId":"pay","attempt":2}`),
	{"EXECUTION_SUSPENDED", `{"on":"__loom_indoubt__","condition":{"stepId":"pay","attempt":2}}`, ""}}

// TestInDoubtVerdicts: only a verdict for the parked step and attempt, beside its EFFECT_INDOUBT,
// is accepted; it is recorded as a kernel __loom_ decision beside a null EXECUTION_RESUMED that adds
// no entry. Reference: spec §5 in-doubt bullets.
func TestInDoubtVerdicts(t *testing.T) {
	w := mustWorld(t, inDoubtLog...)
	p, err := w.eval(t, VerdictRequest(Verdict{StepID: "pay", Attempt: 2, Verdict: VerdictApplied, Output: raw(`{"paid":true}`)}), Options{})
	if err != nil {
		t.Fatalf("ingress/indoubt [S5.ingress.indoubt-verdict-recorded]: Evaluate(verdict) = %v", err)
	}
	if string(p.Appends[0].Payload) != `{"choice":{"output":{"paid":true},"verdict":"applied"},"id":"__loom_indoubt:pay#2"}` ||
		string(p.Appends[0].Metadata) != `{"kernel":true}` || string(p.Appends[1].Payload) != "null" || p.Answers {
		t.Errorf("ingress/indoubt [S5.ingress.indoubt-verdict-recorded]: plan = %+v", p)
	}
	st := w.then(t, p)
	if _, ok := st.Variables.Decisions["__loom_indoubt:pay#2"]; !ok || len(st.Variables.ResumePayloads) != 0 || st.Status != fold.StatusRunning {
		t.Errorf("ingress/indoubt [S5.ingress.indoubt-verdict-recorded S5.ingress.one-entry-per-suspend]: after verdict decisions=%v entries=%d status=%s", st.Variables.Decisions, len(st.Variables.ResumePayloads), st.Status)
	}
	bad := []Request{
		VerdictRequest(Verdict{StepID: "pay", Attempt: 1, Verdict: VerdictApplied}),
		VerdictRequest(Verdict{StepID: "other", Attempt: 2, Verdict: VerdictApplied}),
		VerdictRequest(Verdict{StepID: "pay", Attempt: 2, Verdict: "maybe"}),
		VerdictRequest(Verdict{StepID: "pay", Attempt: 2, Verdict: VerdictNotApplied, Output: raw(`1`)}),
		{EventType: fold.GateInDoubt, Payload: raw(`null`)},
		{EventType: fold.GateInDoubt, Payload: raw(`{"stepId":"pay","attempt":2,"verdict":"applied","extra":1}`)},
		{EventType: "approve", Payload: raw(`{}`)},
		{EventType: "TIMER_FIRED", Payload: raw(`{}`)},
		{EventType: fold.GateInDoubt, Payload: raw(`{"stepId":"pay","attempt":2,"verdict":"applied"}`), DiscardLegacyAnswers: &DiscardLegacyAnswers{StepID: "pay", Count: 1}},
	}
	for _, req := range bad {
		if p, err := w.eval(t, req, Options{}); reasonOf(err) != "validation" || len(p.Appends) != 0 {
			t.Errorf("ingress/indoubt [S5.ingress.indoubt-other-refused]: Evaluate(%s %s) = %v, want ResumePayloadValidationError", req.EventType, req.Payload, err)
		}
	}
	if _, err := w.eval(t, Request{EventType: "STEP_COMPLETED", Payload: raw(`{"stepId":"pay"}`)}, Options{}); reasonOf(err) != ReasonKernelNamespace {
		t.Errorf("ingress/indoubt [S5.ingress.kernel-namespace]: Evaluate(STEP_COMPLETED at in-doubt) = %v, want kernel-namespace", err)
	}
	// Without the kernel's EFFECT_INDOUBT fact no verdict is honoured.
	noFact := mustWorld(t, started, ev{"EXECUTION_SUSPENDED", `{"on":"__loom_indoubt__","condition":{"stepId":"pay","attempt":2}}`, ""})
	if _, err := noFact.eval(t, VerdictRequest(Verdict{StepID: "pay", Attempt: 2, Verdict: VerdictApplied}), Options{}); reasonOf(err) != "validation" {
		t.Errorf("ingress/indoubt [S5.decide.verdict-beside-indoubt]: Evaluate(verdict without EFFECT_INDOUBT) = %v, want validation", err)
	}
	// A verdict already recorded is not recorded again.
	again := mustWorld(t, append(append([]ev{}, inDoubtLog...),
		kev("DECISION_RECORDED", `{"id":"__loom_indoubt:pay#2","choice":{"verdict":"applied"}}`),
		ev{"EXECUTION_RESUMED", `null`, ""},
		ev{"EXECUTION_SUSPENDED", `{"on":"__loom_indoubt__","condition":{"stepId":"pay","attempt":2}}`, ""})...)
	if _, err := again.eval(t, VerdictRequest(Verdict{StepID: "pay", Attempt: 2, Verdict: VerdictNotApplied}), Options{}); reasonOf(err) != "validation" {
		t.Errorf("ingress/indoubt [S5.emit.no-choice-change S5.decide.verdict-beside-indoubt]: Evaluate(second verdict) = %v, want validation", err)
	}
}

// TestTimerWakeAt: TIMER_FIRED is accepted only at a park with a recorded wakeAt, and only for
// that wakeAt. Reference: spec §5, I-KERNEL-53.
func TestTimerWakeAt(t *testing.T) {
	timed := mustWorld(t, started, parkTimed)
	untimed := mustWorld(t, started, parkApprove)
	junk := mustWorld(t, started, ev{"EXECUTION_SUSPENDED", `{"on":"approve","wakeAt":"soon"}`, ""})
	cases := []struct {
		w       world
		payload string
		want    string
	}{
		{timed, `null`, ""},
		{timed, `{}`, ""},
		{timed, `{"wakeAt":1700000000000}`, ""},
		{timed, `{"wakeAt":1.7e12}`, ""},
		{timed, `{"wakeAt":1600000000000}`, ReasonTimerMismatch},
		{timed, `"now"`, ReasonTimerMismatch},
		{untimed, `{"wakeAt":1700000000000}`, ReasonTimerWithoutWakeAt},
		{junk, `{"wakeAt":"soon"}`, ReasonTimerWithoutWakeAt},
	}
	for _, c := range cases {
		p, err := c.w.eval(t, Request{EventType: "TIMER_FIRED", Payload: raw(c.payload)}, Options{})
		if got := reasonOf(err); got != c.want {
			t.Errorf("ingress/timer [S5.ingress.timer-needs-wakeat S5.ingress.timer-exception]: Evaluate(TIMER_FIRED %s) = %q (%v), want %q", c.payload, got, err, c.want)
		}
		if err == nil && string(p.Answer) != `{"wakeAt":1700000000000}` {
			t.Errorf("ingress/timer [S5.ingress.timer-needs-wakeat]: Evaluate(TIMER_FIRED %s).Answer = %s, want the recorded wakeAt", c.payload, p.Answer)
		}
	}
	// Running: the suspended-only rule answers first.
	if _, err := mustWorld(t, started).eval(t, Request{EventType: "TIMER_FIRED"}, Options{}); reasonOf(err) != ReasonNotSuspended {
		t.Errorf("ingress/timer [S5.ingress.suspended-only]: Evaluate(TIMER_FIRED running) = %v, want not-suspended", err)
	}
}

// TestDivergedGate: the reserved divergence gate is released by a null resume of that gate only.
// Reference: spec §4 (1.23.0), I-KERNEL-54.
func TestDivergedGate(t *testing.T) {
	w := mustWorld(t, started, ev{"EXECUTION_SUSPENDED", `{"on":"__loom_diverged__"}`, ""})
	p, err := w.eval(t, Request{EventType: fold.GateDiverged}, Options{})
	if err != nil || p.Kind != KindRelease || p.Answers {
		t.Fatalf("ingress/diverged [S4.v1_23.diverged-null-status-only]: Evaluate(null) = %+v, %v, want a release", p, err)
	}
	if st := w.then(t, p); st.Status != fold.StatusRunning || len(st.Variables.ResumePayloads) != 0 {
		t.Errorf("ingress/diverged [S4.v1_23.diverged-null-status-only]: after release status=%s entries=%d", st.Status, len(st.Variables.ResumePayloads))
	}
	if _, err := w.eval(t, Request{EventType: fold.GateDiverged, Payload: raw(`{"x":1}`)}, Options{}); reasonOf(err) != "validation" {
		t.Errorf("ingress/diverged [S5.ingress.one-entry-per-suspend]: Evaluate(non-null) = %v, want validation", err)
	}
	if _, err := w.eval(t, Request{EventType: "approve"}, Options{}); reasonOf(err) != ReasonGateMismatch {
		t.Errorf("ingress/diverged [S5.ingress.gate-match]: Evaluate(approve) = %v, want gate-mismatch", err)
	}
}

// TestRecover: EXECUTION_RECOVERED only on running or pending; it records no EXECUTION_RESUMED.
// Reference: spec §5.
func TestRecover(t *testing.T) {
	cases := []struct {
		log  []ev
		want string
	}{
		{nil, ""},
		{[]ev{started, stepA}, ""},
		{[]ev{started, parkApprove}, ReasonRecoveredNotRunning},
		{inDoubtLog, ReasonRecoveredNotRunning},
		{[]ev{started, {"EXECUTION_COMPLETED", `{}`, ""}}, ReasonRecoveredNotRunning},
		{[]ev{started, {"EXECUTION_CANCELLED", `{}`, ""}}, ReasonRecoveredNotRunning},
		{[]ev{started, kev("EXECUTION_CONTINUED", `{"continuedTo":"x2"}`)}, ReasonRecoveredNotRunning},
	}
	for _, c := range cases {
		w := mustWorld(t, c.log...)
		p, err := w.eval(t, Request{EventType: "EXECUTION_RECOVERED"}, Options{Authenticator: allowAll})
		if got := reasonOf(err); got != c.want {
			t.Errorf("ingress/recover [S5.ingress.recovered-running-only]: Evaluate(RECOVERED on %s) = %q (%v), want %q", w.st.Status, got, err, c.want)
			continue
		}
		if err == nil {
			if diff := cmp.Diff([]string{"APPROVAL_GRANTED", "EXECUTION_RECOVERED"}, p.Types()); diff != "" {
				t.Errorf("ingress/recover [S5.ingress.redrive-no-resumed]: Types (-want +got):\n%s", diff)
			}
			if st := w.then(t, p); st.Status != w.st.Status || len(st.Variables.ResumePayloads) != len(w.st.Variables.ResumePayloads) {
				t.Errorf("ingress/recover [S5.ingress.redrive-no-resumed]: recover moved the state: %s -> %s", w.st.Status, st.Status)
			}
		}
	}
	w := mustWorld(t, started)
	if _, err := w.eval(t, Request{EventType: "EXECUTION_RECOVERED", DiscardLegacyAnswers: &DiscardLegacyAnswers{StepID: "h", Count: 1}}, Options{Authenticator: allowAll}); reasonOf(err) != ReasonDiscardNotApplicable {
		t.Errorf("ingress/recover [S5.ingress.ambiguous-legacy]: Evaluate(RECOVERED with discard) = %v, want discard-not-applicable", err)
	}
}

// TestInputErrors: inputs that do not fit together are an *InputError, and a done context stops
// the gate; neither plans anything.
func TestInputErrors(t *testing.T) {
	w := mustWorld(t, started, parkApprove)
	other := mustWorld(t, started)
	var ie *InputError
	for name, call := range map[string]func() (Plan, error){
		"zero facts": func() (Plan, error) {
			return Evaluate(context.Background(), w.st, Facts{}, Request{EventType: "approve"}, Options{})
		},
		"facts of other": func() (Plan, error) {
			return Evaluate(context.Background(), w.st, other.facts, Request{EventType: "approve"}, Options{})
		},
		"no event type":    func() (Plan, error) { return w.eval(t, Request{}, Options{}) },
		"payload not json": func() (Plan, error) { return w.eval(t, Request{EventType: "approve", Payload: raw(`{`)}, Options{}) },
	} {
		if p, err := call(); !errors.As(err, &ie) || len(p.Appends) != 0 {
			t.Errorf("ingress/input-errors [S5.ingress.refusal-appends-nothing]: %s: Evaluate = %v, %v, want *InputError", name, p.Types(), err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := Evaluate(ctx, w.st, w.facts, Request{EventType: "approve"}, Options{}); !errors.Is(err, context.Canceled) || len(p.Appends) != 0 {
		t.Errorf("ingress/input-errors [S5.ingress.refusal-appends-nothing]: Evaluate(cancelled ctx) = %v, want context.Canceled", err)
	}
	if f, err := FactsFrom(nil); err != nil || f.Sequence != -1 {
		t.Errorf("ingress/input-errors: FactsFrom(nil) = %+v, %v, want an empty log's facts", f, err)
	}
	gap := build(started, parkApprove)
	gap[1].Sequence = 5
	if _, err := FactsFrom(gap); !errors.As(err, &ie) {
		t.Errorf("ingress/input-errors: FactsFrom(gap) = %v, want *InputError", err)
	}
}

// TestNullAfterParkedFailureParsed: the null-answer rule runs on the caller's payload before the
// shape gate and again on the parsed value. Reference: spec §4, I-KERNEL-55.
func TestNullAfterParkedFailureParsed(t *testing.T) {
	w := mustWorld(t, started, parkApprove, ev{"STEP_FAILED", `{"stepId":"sib","error":"x"}`, ""})
	toNull := Options{ResumeSchemas: map[string]Parser{"approve": func(json.RawMessage) (json.RawMessage, error) { return raw(`null`), nil }}}
	if p, err := w.eval(t, Request{EventType: "approve", Payload: raw(`{"ok":false}`)}, toNull); reasonOf(err) != ReasonNullAfterParkedFailure || len(p.Appends) != 0 {
		t.Errorf("ingress/null-after-failure-parsed [S4.ingress.null-after-parked-failure I-KERNEL-55]: Evaluate(parses to null) = %v, %v, want null-answer-after-parked-failure", p.Types(), err)
	}
	parsed := 0
	toObj := Options{ResumeSchemas: map[string]Parser{"approve": func(json.RawMessage) (json.RawMessage, error) { parsed++; return raw(`{"ok":false}`), nil }}}
	if _, err := w.eval(t, Request{EventType: "approve", Payload: raw(`null`)}, toObj); reasonOf(err) != ReasonNullAfterParkedFailure || parsed != 0 {
		t.Errorf("ingress/null-after-failure-parsed [S4.ingress.null-after-parked-failure I-KERNEL-55]: Evaluate(null, a defaulting schema) = %v after %d parses, want refused before the shape gate", err, parsed)
	}
	// Without a parked failure a null answer is a legitimate answer and is recorded.
	ok := mustWorld(t, started, parkApprove)
	if p, err := ok.eval(t, Request{EventType: "approve", Payload: raw(`null`)}, Options{}); err != nil || !p.Answers || len(ok.then(t, p).Variables.ResumePayloads) != 1 {
		t.Errorf("ingress/null-after-failure-parsed [S4.v1_20.null-resume-no-passthrough]: Evaluate(null at a plain park) = %v, %v, want an answer", p.Types(), err)
	}
}
