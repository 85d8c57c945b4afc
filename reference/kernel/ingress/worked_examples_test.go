package ingress

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// TestWorkedExamplesIngress walks every row of the ingress-gate part of WORKED-EXAMPLES.md.
// Reference: spec §5, ingress gate.
func TestWorkedExamplesIngress(t *testing.T) {
	const we = "reference/kernel/ingress:TestWorkedExamplesIngress"
	approveSchema := map[string]Parser{"approve": func(p json.RawMessage) (json.RawMessage, error) {
		m, ok := object(p)
		if !ok {
			return nil, errors.New("want an object")
		}
		if v, has := m["ok"]; has {
			if string(v) != "true" && string(v) != "false" {
				return nil, errors.New("ok must be a boolean")
			}
			return p, nil
		}
		return json.RawMessage(`{"ok":false,"defaulted":true}`), nil
	}}
	parked := []ev{started, stepA, stepADone, parkApprove}
	timed := []ev{started, stepA, stepADone, parkTimed}
	running := []ev{started, stepA}
	failedParked := []ev{started, parkApprove, {"STEP_FAILED", `{"stepId":"sib","error":"x"}`, ""}}
	inDoubt := []ev{started, {"STEP_STARTED", `{"stepId":"pay","attempt":2,"input":{}}`, ""},
		kev("EFFECT_INDOUBT", `{"stepId":"pay","attempt":2}`),
		{"EXECUTION_SUSPENDED", `{"on":"__loom_indoubt__","condition":{"stepId":"pay","attempt":2}}`, ""}}
	completed := []ev{started, {"EXECUTION_COMPLETED", `{"output":1}`, ""}}
	failed := []ev{started, {"EXECUTION_FAILED", `{"error":"boom"}`, ""}}
	cancelled := []ev{started, {"EXECUTION_CANCELLED", `{}`, ""}}

	type row struct {
		name    string
		clauses []string
		log     []ev
		req     Request
		opts    Options
		want    string   // refusal reason, "validation", or "" for accepted
		types   []string // plan event types when accepted
		answer  string   // recorded answer when accepted (JSON)
		after   string   // status after appending the plan
		thenOK  *Request // refused rows: a request that must still be accepted (still parked, resumable)
	}
	rows := []row{
		{name: "approve-ok",
			log: parked, req: Request{EventType: "approve", Payload: json.RawMessage(`{"ok":true}`)},
			types: []string{"approve", "EXECUTION_RESUMED"}, answer: `{"ok":true}`, after: fold.StatusRunning},
		{name: "step-completed-forgery",
			log: parked, req: Request{EventType: "STEP_COMPLETED", Payload: json.RawMessage(`{"stepId":"A","output":2}`)}, want: ReasonKernelNamespace},
		{name: "execution-migrated",
			log: parked, req: Request{EventType: "EXECUTION_MIGRATED", Payload: json.RawMessage(`{"migratedInput":1}`)}, want: ReasonKernelNamespace},
		{name: "approval-granted",
			log: parked, req: Request{EventType: "APPROVAL_GRANTED", Payload: json.RawMessage(`{"eventType":"approve"}`)}, want: ReasonKernelNamespace},
		{name: "other-kernel-type",
			log: parked, req: Request{EventType: "DECISION_RECORDED", Payload: json.RawMessage(`{"id":"d","choice":1}`)}, want: ReasonKernelNamespace},
		{name: "timer-untimed-gate",
			log: parked, req: Request{EventType: "TIMER_FIRED", Payload: json.RawMessage(`{"wakeAt":1}`)}, want: ReasonTimerWithoutWakeAt},
		{name: "reject-gate-mismatch",
			log: parked, req: Request{EventType: "reject", Payload: json.RawMessage(`{}`)}, want: ReasonGateMismatch},
		{name: "approve-bad-shape",
			log: parked, req: Request{EventType: "approve", Payload: json.RawMessage(`{"ok":"yes"}`)},
			opts: Options{ResumeSchemas: approveSchema}, want: "validation", thenOK: &Request{EventType: "approve", Payload: json.RawMessage(`{"ok":true}`)}},
		{name: "approve-parsed-defaults",
			log: parked, req: Request{EventType: "approve", Payload: json.RawMessage(`{}`)},
			opts: Options{ResumeSchemas: approveSchema}, types: []string{"approve", "EXECUTION_RESUMED"},
			answer: `{"ok":false,"defaulted":true}`, after: fold.StatusRunning},
		{name: "recovered-on-parked",
			log: parked, req: Request{EventType: "EXECUTION_RECOVERED"}, want: ReasonRecoveredNotRunning},
		{name: "timer-timed-gate",
			log: timed, req: Request{EventType: "TIMER_FIRED", Payload: json.RawMessage(`{"wakeAt":1700000000000}`)},
			types: []string{"TIMER_FIRED", "EXECUTION_RESUMED"}, answer: `{"wakeAt":1700000000000}`, after: fold.StatusRunning},
		{name: "timed-gate-approve",
			log: timed, req: Request{EventType: "approve", Payload: json.RawMessage(`{"ok":true}`)},
			types: []string{"approve", "EXECUTION_RESUMED"}, answer: `{"ok":true}`, after: fold.StatusRunning},
		{name: "running-approve",
			log: running, req: Request{EventType: "approve", Payload: json.RawMessage(`{"ok":true}`)}, want: ReasonNotSuspended},
		{name: "running-recovered",
			log: running, req: Request{EventType: "EXECUTION_RECOVERED"}, types: []string{"EXECUTION_RECOVERED"}, after: fold.StatusRunning},
		{name: "failed-parked-null",
			log: failedParked, req: Request{EventType: "approve", Payload: json.RawMessage(`null`)}, want: ReasonNullAfterParkedFailure},
		{name: "failed-parked-answer",
			log: failedParked, req: Request{EventType: "approve", Payload: json.RawMessage(`{"ok":false}`)},
			types: []string{"approve", "EXECUTION_RESUMED"}, answer: `{"ok":false}`, after: fold.StatusRunning},
		{name: "completed-resume",
			log: completed, req: Request{EventType: "approve", Payload: json.RawMessage(`{}`)}, want: ReasonTerminal},
		{name: "failed-resume",
			log: failed, req: Request{EventType: "approve", Payload: json.RawMessage(`{}`)}, want: ReasonTerminal},
		{name: "cancelled-resume",
			log: cancelled, req: Request{EventType: "approve", Payload: json.RawMessage(`{}`)}, want: ReasonTerminal},
		{name: "completed-resumeas",
			log: completed, req: Request{As: &ResumeAs{FlowHash: "sha256:bb"}, EventType: "approve", Payload: json.RawMessage(`{}`)},
			types: []string{"EXECUTION_MIGRATED", "approve", "EXECUTION_RESUMED"}, after: fold.StatusRunning},
		{name: "completed-resumeas-kernel",
			log: completed, req: Request{As: &ResumeAs{}, EventType: "STEP_COMPLETED", Payload: json.RawMessage(`{"stepId":"A"}`)}, want: ReasonKernelNamespace},
		{name: "indoubt-verdict",
			log: inDoubt, req: VerdictRequest(Verdict{StepID: "pay", Attempt: 2, Verdict: VerdictNotApplied}),
			types: []string{"DECISION_RECORDED", "EXECUTION_RESUMED"}, after: fold.StatusRunning},
		{name: "indoubt-other-step",
			log: inDoubt, req: VerdictRequest(Verdict{StepID: "pay", Attempt: 1, Verdict: VerdictApplied}), want: "validation"},
		{name: "indoubt-plain-resume",
			log: inDoubt, req: Request{EventType: "approve", Payload: json.RawMessage(`{"ok":true}`)}, want: "validation"},
		{name: "auth-first-rejects",
			log: parked, req: Request{EventType: "STEP_COMPLETED", Payload: json.RawMessage(`{}`)},
			opts: Options{Authenticator: AuthenticatorFunc(func(_ context.Context, _ ResumeEvent) (Approval, error) {
				return Approval{}, errors.New("bad signature")
			})}, want: ReasonAuthenticatorRejected},
		{name: "auth-then-answer",
			log: parked, req: Request{EventType: "approve", Payload: json.RawMessage(`{"ok":true}`)}, opts: Options{Authenticator: allowAll},
			types: []string{"APPROVAL_GRANTED", "approve", "EXECUTION_RESUMED"}, answer: `{"ok":true}`, after: fold.StatusRunning},
	}
	clauses := checkClauses(t, we, "ingress/worked-example/")
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			r.clauses = clauses.take(t, r.name)
			w := mustWorld(t, r.log...)
			p, err := w.eval(t, r.req, r.opts)
			if got := reasonOf(err); got != r.want {
				t.Fatalf("ingress/worked-examples %v: Evaluate(%s, %q) = %q (%v), want %q", r.clauses, r.name, r.req.EventType, got, err, r.want)
			}
			if err != nil {
				if len(p.Appends) != 0 {
					t.Fatalf("ingress/worked-examples %v: Evaluate(%s) refused but planned %v, want no plan", r.clauses, r.name, p.Types())
				}
				if r.thenOK != nil {
					if _, err := w.eval(t, *r.thenOK, r.opts); err != nil {
						t.Errorf("ingress/worked-examples %v: after refusing %s, Evaluate(%q) = %v, want accepted (still parked and resumable)", r.clauses, r.name, r.thenOK.EventType, err)
					}
				}
				return
			}
			if diff := cmp.Diff(r.types, p.Types()); diff != "" {
				t.Errorf("ingress/worked-examples %v: Evaluate(%s).Types (-want +got):\n%s", r.clauses, r.name, diff)
			}
			if r.answer != "" && string(p.Answer) != r.answer {
				t.Errorf("ingress/worked-examples %v: Evaluate(%s).Answer = %s, want %s", r.clauses, r.name, p.Answer, r.answer)
			}
			st := w.then(t, p)
			if st.Status != r.after {
				t.Errorf("ingress/worked-examples %v: fold after plan(%s).status = %q, want %q", r.clauses, r.name, st.Status, r.after)
			}
			grew := len(st.Variables.ResumePayloads) - len(w.st.Variables.ResumePayloads)
			if (grew == 1) != p.Answers || grew > 1 {
				t.Errorf("ingress/worked-examples %v: plan(%s) added %d _resumePayloads entries, want %d", r.clauses, r.name, grew, map[bool]int{true: 1}[p.Answers])
			}
			if st.Status == fold.StatusRunning {
				for _, k := range []string{fold.VarFailedWhileParked, fold.VarSuspendedOn} {
					if _, ok := st.Variables.Values[k]; ok {
						t.Errorf("ingress/worked-examples %v: after plan(%s) %s is still set, want cleared", r.clauses, r.name, k)
					}
				}
			}
		})
	}
}
