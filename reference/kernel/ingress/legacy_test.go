package ingress

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

var (
	humanH      = ev{"STEP_STARTED", `{"stepId":"h","attempt":1,"kind":"human","input":{}}`, ""}
	orphan      = ev{"EXECUTION_RESUMED", `{"stray":1}`, ""} // a resume recorded while running (pre-gate log)
	parkG       = ev{"EXECUTION_SUSPENDED", `{"on":"g"}`, ""}
	parkG2      = ev{"EXECUTION_SUSPENDED", `{"on":"g2"}`, ""}
	answerA     = ev{"EXECUTION_RESUMED", `{"a":1}`, ""}
	parkHOwned  = ev{"EXECUTION_SUSPENDED", `{"on":"g","condition":{"stepId":"h"}}`, ""}
	unspentLog  = []ev{started, orphan, humanH, parkG}
	unattribLog = []ev{started, humanH, parkG, answerA, parkG2}
)

// TestAmbiguousLegacy: both ambiguous pre-0104 shapes are refused unless a verified
// discardLegacyAnswers names the step; the override is recorded and ends the ambiguity.
// Reference: spec §5 (human step bullet), I-KERNEL-56.
func TestAmbiguousLegacy(t *testing.T) {
	discard := &DiscardLegacyAnswers{StepID: "h", Count: 1}
	cases := []struct {
		name string
		log  []ev
		req  Request
		opts Options
		want string
	}{
		{"unspent-before-start", unspentLog, Request{EventType: "g", Payload: raw(`{}`)}, Options{}, ReasonAmbiguousLegacy},
		{"unattributed-after-answer", unattribLog, Request{EventType: "g2", Payload: raw(`{}`)}, Options{}, ReasonAmbiguousLegacy},
		{"attributed-is-fine", []ev{started, orphan, humanH, parkHOwned}, Request{EventType: "g", Payload: raw(`{}`)}, Options{}, ""},
		{"spent-before-start", []ev{started, orphan, parkG, answerA, humanH, parkG2}, Request{EventType: "g2", Payload: raw(`{}`)}, Options{}, ""},
		{"closed-step", []ev{started, orphan, humanH, {"STEP_COMPLETED", `{"stepId":"h","output":1}`, ""}, parkG}, Request{EventType: "g", Payload: raw(`{}`)}, Options{}, ""},
		{"discard-unverified", unspentLog, Request{EventType: "g", Payload: raw(`{}`), DiscardLegacyAnswers: discard}, Options{}, ReasonAmbiguousLegacy},
		{"discard-verified", unspentLog, Request{EventType: "g", Payload: raw(`{}`), DiscardLegacyAnswers: discard}, Options{Authenticator: allowAll}, ""},
		{"discard-wrong-step", unspentLog, Request{EventType: "g", Payload: raw(`{}`), DiscardLegacyAnswers: &DiscardLegacyAnswers{StepID: "x", Count: 1}}, Options{Authenticator: allowAll}, ReasonAmbiguousLegacy},
		{"discard-count-zero", unspentLog, Request{EventType: "g", Payload: raw(`{}`), DiscardLegacyAnswers: &DiscardLegacyAnswers{StepID: "h"}}, Options{Authenticator: allowAll}, ReasonAmbiguousLegacy},
		{"discard-count-over", unspentLog, Request{EventType: "g", Payload: raw(`{}`), DiscardLegacyAnswers: &DiscardLegacyAnswers{StepID: "h", Count: 2}}, Options{Authenticator: allowAll}, ReasonAmbiguousLegacy},
		{"discard-on-timer", []ev{started, orphan, humanH, parkTimed}, Request{EventType: "TIMER_FIRED", DiscardLegacyAnswers: discard}, Options{Authenticator: allowAll}, ReasonAmbiguousLegacy},
		{"discard-not-ambiguous", []ev{started, parkApprove}, Request{EventType: "approve", Payload: raw(`{}`), DiscardLegacyAnswers: discard}, Options{Authenticator: allowAll}, ReasonDiscardNotApplicable},
		{"recover-ambiguous", []ev{started, orphan, humanH}, Request{EventType: "EXECUTION_RECOVERED"}, Options{}, ReasonAmbiguousLegacy},
		{"recover-with-discard", []ev{started, orphan, humanH}, Request{EventType: "EXECUTION_RECOVERED", DiscardLegacyAnswers: discard}, Options{Authenticator: allowAll}, ReasonDiscardNotApplicable},
	}
	for _, c := range cases {
		w := mustWorld(t, c.log...)
		p, err := w.eval(t, c.req, c.opts)
		if got := reasonOf(err); got != c.want {
			t.Errorf("ingress/ambiguous-legacy [S5.ingress.ambiguous-legacy]: Evaluate(%s) = %q (%v), want %q", c.name, got, err, c.want)
			continue
		}
		if c.name != "discard-verified" {
			continue
		}
		want := []string{"APPROVAL_GRANTED", "DECISION_RECORDED", "g", "EXECUTION_RESUMED"}
		if diff := cmp.Diff(want, p.Types()); diff != "" || string(p.Appends[1].Payload) != `{"choice":{"count":1},"id":"__loom_discard:h"}` {
			t.Errorf("ingress/ambiguous-legacy [S5.ingress.ambiguous-legacy]: discard plan %s (-want +got):\n%s", p.Appends[1].Payload, diff)
		}
		// Once recorded, the step is no longer ambiguous: the next park resumes plainly.
		events := append(w.events, p.Envelopes("wf", "x", w.st.Sequence, 9, func(int) string { return "d" })...)
		events = append(events, build(started, parkG2)[1])
		events[len(events)-1].Sequence = int64(len(events) - 1)
		st, err := fold.Fold(fold.Current(), nil, events)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := FactsFrom(events)
		if amb := AmbiguousSteps(f, st.Variables.Decisions); len(amb) != 0 {
			t.Errorf("ingress/ambiguous-legacy [S5.ingress.ambiguous-legacy]: AmbiguousSteps after the override = %v, want none", amb)
		}
	}
}

// TestLegacyEntries: entries that answered no suspend point are listed with whether they are
// spent. Reference: spec §5 (SHOULD warn), I-KERNEL-57.
func TestLegacyEntries(t *testing.T) {
	w := mustWorld(t, started, orphan, parkG, answerA, ev{"EXECUTION_RESUMED", `{"late":1}`, ""},
		ev{"EXECUTION_SUSPENDED", `{"on":"__loom_indoubt__"}`, ""}, ev{"EXECUTION_RESUMED", `{"at-indoubt":1}`, ""})
	got := LegacyEntries(w.facts)
	want := []LegacyEntry{{Index: 0, Sequence: 1, Spent: true}, {Index: 2, Sequence: 4, Spent: false}, {Index: 3, Sequence: 6, Spent: false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ingress/legacy-entries [S5.ingress.legacy-warn S5.ingress.legacy-as-written]: LegacyEntries (-want +got):\n%s", diff)
	}
	if len(w.st.Variables.ResumePayloads) != 4 {
		t.Errorf("ingress/legacy-entries [S5.ingress.legacy-as-written]: fold kept %d entries, want 4 (legacy logs replay as written)", len(w.st.Variables.ResumePayloads))
	}
	if got := LegacyEntries(mustWorld(t, started, parkApprove, answerA).facts); len(got) != 0 {
		t.Errorf("ingress/legacy-entries [S5.ingress.legacy-warn]: LegacyEntries(clean log) = %v, want none", got)
	}
}
