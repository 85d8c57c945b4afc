package deploysim

import (
	"encoding/json"
	"fmt"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/spi"
)

// What the real fleet (deploysim/realfleet) shares with the simulation: the same flows, the same
// executions and inputs, the same outside world, the same single-worker reference and the same
// comparison.

// Execution is one execution a fleet runs: its id, flow and input.
type Execution struct {
	ID, Flow string
	Input    json.RawMessage
}

// Executions returns the executions of a run with orders and batches (the simulation's).
func Executions(orders, batches int) []Execution {
	s := newSim(Config{Orders: orders, Batches: batches, Workers: 1}.withDefaults(), Scenario{Profiles: []string{fold.Current().Version()}, Code: 1})
	out := make([]Execution, len(s.execs))
	for i, e := range s.execs {
		out[i] = Execution{ID: e.id, Flow: e.flow, Input: e.input}
	}
	return out
}

// FlowDefs returns the flow scripts of code version v as kernel flows.
func FlowDefs(v int) []kernel.FlowDef { return flowDefs(v) }

// CodeHash is the codeHash flow records under code version v.
func CodeHash(flow string, v int) string { return codeHash(flow, v) }

// StartHints are the hints of an execution's first package.
func StartHints(e Execution) json.RawMessage { return mustJSON(map[string]any{"input": e.Input}) }

// AnswerHints are the hints of the package that answers a park of st, or nil when the outside
// world has no answer for it. ran says whether the at-most-once effect of an in-doubt park ran
// (the operator checked the external system) and with which tool.
func AnswerHints(evs []spi.Envelope, st fold.State, ran func(step string, attempt int64) (tool string, ok bool)) json.RawMessage {
	var on struct {
		On        string `json:"on"`
		Condition struct {
			StepID  string `json:"stepId"`
			Attempt int64  `json:"attempt"`
		} `json:"condition"`
	}
	_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
	switch on.On {
	case gateOK:
		return mustJSON(map[string]any{"resume": map[string]any{"eventType": gateOK, "payload": map[string]any{"approved": true, "by": "operator"}}})
	case fold.GateInDoubt:
		step, attempt := on.Condition.StepID, on.Condition.Attempt
		v := ingress.Verdict{StepID: step, Attempt: attempt, Verdict: ingress.VerdictNotApplied}
		if tool, ok := ran(step, attempt); ok {
			v.Verdict = ingress.VerdictApplied
			for _, e := range evs {
				var p struct {
					StepID  string          `json:"stepId"`
					Attempt int64           `json:"attempt"`
					Input   json.RawMessage `json:"input"`
				}
				_ = json.Unmarshal(e.Payload, &p)
				if e.EventType == "STEP_STARTED" && p.StepID == step && p.Attempt == attempt {
					v.Output = fakeOutput(tool, p.Input)
				}
			}
		}
		return mustJSON(map[string]any{"verdict": v})
	}
	return nil
}

// Reference returns the final states of a single current worker running the executions with no
// faults on code version code.
func Reference(orders, batches, code int) map[string]fold.State {
	s := newSim(Config{Orders: orders, Batches: batches, Workers: 1}.withDefaults(), Scenario{Profiles: []string{fold.Current().Version()}, Code: code})
	return s.referenceAt(code)
}

// ReferenceLogs returns the logs a single current worker writes running the executions with no
// faults on code version code: what a correct fleet leaves behind, for tests of a fleet's checks.
func ReferenceLogs(orders, batches, code int) map[string][]spi.Envelope {
	s := newSim(Config{Orders: orders, Batches: batches, Workers: 1}.withDefaults(), Scenario{Profiles: []string{fold.Current().Version()}, Code: code})
	return s.referenceLogs(code)
}

// SameOutcome compares two final states as sim/single-worker does (status, output, error, frame
// statuses and outputs, resume payloads) and returns a (-want +got) diff, "" when equal.
func SameOutcome(want, got fold.State) string {
	d := cmp.Diff(project(want), project(got))
	if d == "" {
		if e := cmp.Diff(want.Variables.FlowEmits, got.Variables.FlowEmits); e != "" {
			return fmt.Sprintf("_flowEmits differ:\n%s", e)
		}
	}
	return d
}

// NewViolation builds a violation of the named invariant (Invariants) for a real fleet.
func NewViolation(id, exec, op, got, want, repro string) Violation {
	return Violation{Invariant: id, Clauses: invariant(id).Clauses, Execution: exec, Op: op, Got: got, Want: want, Repro: repro}
}
