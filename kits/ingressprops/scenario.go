package ingressprops

import (
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"pgregory.net/rapid"
)

// Legacy shapes a generated log may hold (spec §5, human-step bullet).
const (
	LegacyNone         = ""
	LegacyUnspent      = "unspent-before-start"      // a stray entry before an open human step's first start
	LegacyUnattributed = "unattributed-after-answer" // an answer after the step's start, then an unattributed park
)

// Scenario describes an execution's log: the builder writes a realistic log from it and the model
// predicts the gate's verdict from it, never from the log.
type Scenario struct {
	Status            string // a fold.Status* value
	Gate              string // when suspended: a gate name, fold.GateInDoubt or fold.GateDiverged
	Timed             bool   // the park recorded a wakeAt
	FailedWhileParked bool   // a sibling's STEP_FAILED landed after the park
	InDoubtFact       bool   // at an in-doubt park: EFFECT_INDOUBT recorded
	VerdictRecorded   bool   // at an in-doubt park: a verdict for the same step and attempt already recorded
	Legacy            string // Legacy* shape
	DiscardRecorded   bool   // a discardLegacyAnswers override for the human step is already recorded
	Noise             []string
}

// Attempt is one resume attempt.
type Attempt struct {
	ResumeAs     bool
	EventType    string
	Payload      string // JSON text
	Discard      string // "", "ok", "wrong-step", "zero", "over"
	Auth         string // "", "accept", "reject"
	Schema       string // resumeSchemas entry keyed on EventType: "", "identity", "default", "reject", "to-null"
	Transform    string // resumeAs only: "", "ok", "fail"
	NoOptsSchema bool   // resumeAs: leave Options.ResumeSchemas empty (else a rejecting map the gate must ignore)
}

// Case is one generated test case.
type Case struct {
	Scenario Scenario
	Attempt  Attempt
}

// Fixed names the generator uses.
const (
	HumanStep      = "h"
	InDoubtStep    = "pay"
	InDoubtAttempt = 2
	WakeAt         = 1700000000000
	inputJSON      = `{"n":1}`
)

// GoString prints a case readably (rapid prints drawn values with %#v).
func (c Case) GoString() string {
	s, a := c.Scenario, c.Attempt
	var b strings.Builder
	fmt.Fprintf(&b, "state{status=%s", s.Status)
	if s.Status == fold.StatusSuspended {
		fmt.Fprintf(&b, " gate=%q timed=%v failedWhileParked=%v", s.Gate, s.Timed, s.FailedWhileParked)
		if s.Gate == fold.GateInDoubt {
			fmt.Fprintf(&b, " inDoubtFact=%v verdictRecorded=%v", s.InDoubtFact, s.VerdictRecorded)
		}
	}
	fmt.Fprintf(&b, " legacy=%q discardRecorded=%v noise=%v} ", s.Legacy, s.DiscardRecorded, s.Noise)
	kind := "resume"
	if a.ResumeAs {
		kind = "resumeAs"
	}
	fmt.Fprintf(&b, "%s{eventType=%q payload=%s discard=%q auth=%q schema=%q transform=%q}", kind, a.EventType, a.Payload, a.Discard, a.Auth, a.Schema, a.Transform)
	return b.String()
}

// Cases generates cases: random execution states crossed with random resume attempts, every event
// type included.
func Cases() *rapid.Generator[Case] {
	return rapid.Custom(func(t *rapid.T) Case {
		sc := scenarioGen().Draw(t, "scenario")
		at := attemptGen(sc).Draw(t, "attempt")
		return Case{Scenario: sc, Attempt: at}
	})
}

var statuses = []string{fold.StatusPending, fold.StatusRunning, fold.StatusRunning, fold.StatusSuspended, fold.StatusSuspended,
	fold.StatusSuspended, fold.StatusSuspended, fold.StatusCompleted, fold.StatusFailed, fold.StatusCancelled, fold.StatusContinued}

var noiseOps = []string{"step", "decision", "emit", "answered-park", "spent-stray", "closed-human", "retry"}

func scenarioGen() *rapid.Generator[Scenario] {
	return rapid.Custom(func(t *rapid.T) Scenario {
		sc := Scenario{Status: rapid.SampledFrom(statuses).Draw(t, "status")}
		if sc.Status == fold.StatusPending {
			return sc
		}
		sc.Noise = rapid.SliceOfN(rapid.SampledFrom(noiseOps), 0, 4).Draw(t, "noise")
		if sc.Status == fold.StatusSuspended {
			sc.Gate = rapid.SampledFrom([]string{"approve", "approve", "review", fold.GateInDoubt, fold.GateInDoubt, fold.GateDiverged}).Draw(t, "gate")
			if sc.Gate != fold.GateInDoubt && sc.Gate != fold.GateDiverged {
				sc.Timed = rapid.Bool().Draw(t, "timed")
			}
			sc.FailedWhileParked = rapid.Bool().Draw(t, "failedWhileParked")
			if sc.Gate == fold.GateInDoubt {
				sc.InDoubtFact = rapid.IntRange(0, 3).Draw(t, "inDoubtFact") > 0
				sc.VerdictRecorded = rapid.IntRange(0, 4).Draw(t, "verdictRecorded") == 0
			}
		}
		sc.Legacy = rapid.SampledFrom([]string{LegacyNone, LegacyNone, LegacyUnspent, LegacyUnattributed}).Draw(t, "legacy")
		if sc.Legacy != LegacyNone {
			sc.DiscardRecorded = rapid.IntRange(0, 3).Draw(t, "discardRecorded") == 0
		}
		return sc
	})
}

// kernelTypes are the K5 event types, every one a possible (forged) resume event type.
func kernelTypes() []string {
	var out []string
	for _, e := range manifest.EventTypes() {
		out = append(out, e.Name)
	}
	return out
}

func attemptGen(sc Scenario) *rapid.Generator[Attempt] {
	return rapid.Custom(func(t *rapid.T) Attempt {
		var a Attempt
		a.ResumeAs = rapid.IntRange(0, 3).Draw(t, "resumeAs") == 0
		gate := sc.Gate
		if gate == "" {
			gate = "approve"
		}
		choices := []string{gate, gate, gate, "approve", "reject", manifest.TimerFired, manifest.TimerFired, manifest.ExecutionRecovered,
			manifest.ExecutionRecovered, fold.GateInDoubt, fold.GateDiverged, "kernel"}
		if a.ResumeAs {
			choices = append(choices, "")
		}
		a.EventType = rapid.SampledFrom(choices).Draw(t, "eventType")
		if a.EventType == "kernel" {
			a.EventType = rapid.SampledFrom(kernelTypes()).Draw(t, "kernelType")
		}
		verdicts := []string{}
		if sc.Gate == fold.GateInDoubt {
			verdicts = []string{
				fmt.Sprintf(`{"stepId":%q,"attempt":%d,"verdict":"applied"}`, InDoubtStep, InDoubtAttempt),
				fmt.Sprintf(`{"stepId":%q,"attempt":%d,"verdict":"not-applied"}`, InDoubtStep, InDoubtAttempt),
			}
		}
		a.Payload = rapid.SampledFrom(append(verdicts,
			`null`, `null`, `{"ok":true}`, `{"ok":false}`, `"text"`, `{}`,
			fmt.Sprintf(`{"stepId":%q,"attempt":%d,"verdict":"applied"}`, InDoubtStep, InDoubtAttempt),
			fmt.Sprintf(`{"stepId":%q,"attempt":%d,"verdict":"not-applied"}`, InDoubtStep, InDoubtAttempt),
			fmt.Sprintf(`{"stepId":%q,"attempt":%d,"verdict":"applied"}`, InDoubtStep, InDoubtAttempt+1),
			fmt.Sprintf(`{"wakeAt":%d}`, int64(WakeAt)), `{"wakeAt":1}`,
		)).Draw(t, "payload")
		if rapid.IntRange(0, 4).Draw(t, "hasDiscard") == 0 {
			a.Discard = rapid.SampledFrom([]string{"ok", "ok", "wrong-step", "zero", "over"}).Draw(t, "discard")
		}
		a.Auth = rapid.SampledFrom([]string{"", "", "", "accept", "accept", "accept", "reject"}).Draw(t, "auth")
		a.Schema = rapid.SampledFrom([]string{"", "", "identity", "default", "reject", "to-null"}).Draw(t, "schema")
		if a.ResumeAs {
			a.Transform = rapid.SampledFrom([]string{"", "ok", "fail"}).Draw(t, "transform")
			a.NoOptsSchema = rapid.Bool().Draw(t, "noOptsSchema")
		}
		return a
	})
}
