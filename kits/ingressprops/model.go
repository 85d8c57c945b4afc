package ingressprops

import (
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// This file is the model: a deliberately simple predicate written straight from spec §5 (and the
// interpretations I-KERNEL-50..60). It reads the Scenario — what the generator meant to build —
// never the log, the fold or the gate's code, and shares nothing with reference/kernel/ingress but
// the vocabulary of reasons.

// Prediction is what the spec says the gate must do with a case.
type Prediction struct {
	Reason    string   // "" = accepted; a refusal reason; "validation" = ResumePayloadValidationError
	NamesGate bool     // a gate-mismatch refusal names the gate (to an authenticated caller only)
	Kind      string   // accepted: answer, verdict, release, recover, migrate, reopen
	Types     []string // accepted: the event types appended, in order
	Answer    string   // accepted answer kinds: the recorded answer (JSON)
	Answers   bool     // the EXECUTION_RESUMED adds one _resumePayloads entry
}

func refused(reason string) Prediction { return Prediction{Reason: reason} }

func isKernelType(t string) bool {
	for _, e := range manifest.EventTypes() {
		if e.Name == t {
			return true
		}
	}
	return false
}

func isTerminal(status string) bool {
	return status == fold.StatusCompleted || status == fold.StatusFailed || status == fold.StatusCancelled || status == fold.StatusContinued
}

func normalGate(g string) bool { return g != fold.GateInDoubt && g != fold.GateDiverged }

// ambiguous: an open human step whose answer cannot be attributed (spec §5; I-KERNEL-56), unless
// an override is already recorded.
func ambiguous(sc Scenario) bool {
	if sc.DiscardRecorded {
		return false
	}
	parkedNormal := sc.Status == fold.StatusSuspended && normalGate(sc.Gate)
	switch sc.Legacy {
	case LegacyUnspent:
		return sc.Status == fold.StatusRunning || parkedNormal
	case LegacyUnattributed:
		return parkedNormal
	}
	return false
}

// entryCount is the number of _resumePayloads entries the scenario's log holds.
func entryCount(sc Scenario) int {
	n := 0
	for _, op := range sc.Noise {
		switch op {
		case "answered-park", "closed-human":
			n++
		case "spent-stray":
			n += 2
		}
	}
	if sc.Legacy != LegacyNone {
		n++
	}
	return n
}

func isNullJSON(s string) bool { return s == "null" }

// timerPayloadOK: null, or an object whose wakeAt (when present) is the recorded one.
func timerPayloadOK(p string) bool {
	if isNullJSON(p) {
		return true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(p), &m) != nil || m == nil {
		return false
	}
	w, has := m["wakeAt"]
	return !has || string(w) == fmt.Sprint(int64(WakeAt))
}

func isVerdictFor(p string) bool {
	return p == fmt.Sprintf(`{"stepId":%q,"attempt":%d,"verdict":"applied"}`, InDoubtStep, InDoubtAttempt) ||
		p == fmt.Sprintf(`{"stepId":%q,"attempt":%d,"verdict":"not-applied"}`, InDoubtStep, InDoubtAttempt)
}

// Predict applies spec §5 to a case, in the spec's order: resumeAs onto an unparked execution
// (namespace rule only); else identity, ingress rules, shape.
func Predict(c Case) Prediction {
	sc, a := c.Scenario, c.Attempt
	et := a.EventType
	parked := sc.Status == fold.StatusSuspended
	kernel := isKernelType(et)

	if a.ResumeAs && !parked {
		switch {
		case et != "" && kernel && et == manifest.TimerFired:
			return refused("timer-without-wakeat")
		case et != "" && kernel:
			return refused("kernel-namespace")
		case a.Discard != "":
			return refused("discard-not-applicable")
		case a.Transform == "fail":
			return refused("transform-failed")
		}
		p := Prediction{Kind: "migrate", Types: []string{"EXECUTION_MIGRATED"}}
		if et != "" {
			p.Types = append(p.Types, et)
		}
		if isTerminal(sc.Status) {
			p.Kind = "reopen"
			p.Types = append(p.Types, "EXECUTION_RESUMED")
		}
		return p
	}

	// Identity first.
	if a.Auth == "reject" {
		return refused("authenticator-rejected")
	}
	authed := a.Auth == "accept"
	var pre []string
	if authed {
		pre = append(pre, "APPROVAL_GRANTED")
	}
	if a.ResumeAs {
		pre = append(pre, "EXECUTION_MIGRATED")
	}
	with := func(types ...string) []string { return append(append([]string{}, pre...), types...) }

	// Ingress rules.
	recover := !a.ResumeAs && et == manifest.ExecutionRecovered
	if kernel && et != manifest.TimerFired && !recover {
		return refused("kernel-namespace")
	}
	if recover {
		switch {
		case sc.Status != fold.StatusRunning && sc.Status != fold.StatusPending:
			return refused("recovered-not-running")
		case a.Discard != "":
			return refused("discard-not-applicable")
		case ambiguous(sc):
			return refused("ambiguous-legacy-answers")
		}
		return Prediction{Kind: "recover", Types: with("EXECUTION_RECOVERED")}
	}
	if isTerminal(sc.Status) {
		return refused("terminal")
	}
	if !parked {
		return refused("not-suspended")
	}
	if sc.Gate == fold.GateInDoubt {
		if et != fold.GateInDoubt || a.Discard != "" || !isVerdictFor(a.Payload) || !sc.InDoubtFact || sc.VerdictRecorded {
			return refused("validation")
		}
		if a.Transform == "fail" {
			return refused("transform-failed")
		}
		return Prediction{Kind: "verdict", Types: with("DECISION_RECORDED", "EXECUTION_RESUMED")}
	}
	if et == manifest.TimerFired {
		if !sc.Timed {
			return refused("timer-without-wakeat")
		}
		if !timerPayloadOK(a.Payload) {
			return refused("timer-mismatch")
		}
	} else if et != sc.Gate {
		return Prediction{Reason: "gate-mismatch", NamesGate: authed}
	}
	if sc.Gate == fold.GateDiverged {
		switch {
		case !isNullJSON(a.Payload):
			return refused("validation")
		case a.Discard != "":
			return refused("discard-not-applicable")
		case a.Transform == "fail":
			return refused("transform-failed")
		}
		return Prediction{Kind: "release", Types: with(et, "EXECUTION_RESUMED")}
	}
	if sc.FailedWhileParked && isNullJSON(a.Payload) {
		return refused("null-answer-after-parked-failure")
	}
	var decision []string
	if ambiguous(sc) {
		if a.Discard != "ok" || et == manifest.TimerFired || !authed {
			return refused("ambiguous-legacy-answers")
		}
		decision = []string{"DECISION_RECORDED"}
	} else if a.Discard != "" {
		return refused("discard-not-applicable")
	}

	// Shape gate (keyed on the event type; the kernel's TIMER_FIRED payload is not a gate's).
	answer := a.Payload
	if et == manifest.TimerFired {
		answer = fmt.Sprintf(`{"wakeAt":%d}`, int64(WakeAt))
	} else {
		switch a.Schema {
		case "reject":
			return refused("validation")
		case "default":
			answer = `{"defaulted":true}`
		case "to-null":
			answer = "null"
		}
	}
	if sc.FailedWhileParked && isNullJSON(answer) {
		return refused("null-answer-after-parked-failure")
	}
	if a.Transform == "fail" {
		return refused("transform-failed")
	}
	return Prediction{Kind: "answer", Types: with(append(decision, et, "EXECUTION_RESUMED")...), Answer: answer, Answers: true}
}
