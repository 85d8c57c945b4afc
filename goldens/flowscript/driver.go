package flowscript

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// DriverFormat is the version tag every driver script carries.
const DriverFormat = "loom-driver/1"

// DefaultClock is the virtual time (epoch ms) a driver's clock starts at unless it says otherwise.
const DefaultClock = 1_700_000_000_000

// Driver is what the outside world does to one execution, in order: the runtime configuration it
// is run under and the actions. The clock is virtual: it starts at Clock and advances 1 ms per
// reading; "advance" and "fireTimers" move it.
type Driver struct {
	Format string `json:"format"`
	// About says in a sentence what the golden shows; Clauses are the clause ids it exercises.
	About   string   `json:"about,omitempty"`
	Clauses []string `json:"clauses,omitempty"`
	// Execution is the execution id (default "e1").
	Execution string `json:"execution,omitempty"`
	// Profile is the event-schema profile the runtime writes and folds with (default current).
	Profile string `json:"profile,omitempty"`
	// Budget caps resource dimensions (spec §8); absent = no budget.
	Budget map[string]float64 `json:"budget,omitempty"`
	// Timers wires a timer store (suspend timeouts derive a wakeAt; fireTimers works).
	Timers bool `json:"timers,omitempty"`
	// Snapshots wires a snapshot store (the snapshot action).
	Snapshots bool `json:"snapshots,omitempty"`
	// Clock is the virtual time the run starts at (default DefaultClock).
	Clock   int64          `json:"clock,omitempty"`
	Actions []DriverAction `json:"actions"`
}

// DriverAction is one outside action. Do names it; the fields it takes are listed in actionFields.
type DriverAction struct {
	Do string `json:"do"`
	// start / resumeAs / continueAsNew drive: the input; resume / resumeAs: the gate's answer.
	Input     json.RawMessage `json:"input,omitempty"`
	EventType string          `json:"eventType,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	// resumeAs: the target flow (a whole flow script) and an optional transform of _input.
	Flow      json.RawMessage `json:"flow,omitempty"`
	Transform *Transform      `json:"transform,omitempty"`
	// verdict on an in-doubt step.
	StepID  string          `json:"stepId,omitempty"`
	Attempt int64           `json:"attempt,omitempty"`
	Verdict string          `json:"verdict,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
	// fireTimers / advance: the virtual time; crash: the append (1-based) of the next action that fails.
	At int64 `json:"at,omitempty"`
	// cancel.
	Reason string `json:"reason,omitempty"`
	// deliver (receive/select).
	Topic     string          `json:"topic,omitempty"`
	MessageID string          `json:"messageId,omitempty"`
	Message   json.RawMessage `json:"message,omitempty"`
	// drive: another execution (the continuation of continueAsNew); default the driver's.
	Execution string `json:"execution,omitempty"`

	// Script is Flow decoded (resumeAs), set by DecodeDriver.
	Script *Script `json:"-"`
}

// Transform maps the current _input to the migrated input of a resumeAs (K11.5), declaratively:
// Merge shallow-merges an object into it, Set replaces it, Fail refuses the resumeAs.
type Transform struct {
	Merge json.RawMessage `json:"merge,omitempty"`
	Set   json.RawMessage `json:"set,omitempty"`
	Fail  string          `json:"fail,omitempty"`
}

// Apply runs the transform on an input.
func (t *Transform) Apply(in json.RawMessage) (json.RawMessage, error) {
	switch {
	case t.Fail != "":
		return nil, fmt.Errorf("%s", t.Fail)
	case t.Set != nil:
		return t.Set, nil
	case t.Merge != nil:
		var base, add map[string]json.RawMessage
		if err := json.Unmarshal(in, &base); err != nil || base == nil {
			base = map[string]json.RawMessage{}
		}
		if err := json.Unmarshal(t.Merge, &add); err != nil {
			return nil, fmt.Errorf("transform merge: %v", err)
		}
		for k, v := range add {
			base[k] = v
		}
		return json.Marshal(base)
	}
	return in, nil
}

// Driver actions and the fields each takes ("!" = required).
var actionFields = map[string][]string{
	"start":      {"input"},
	"resume":     {"eventType!", "payload"},
	"resumeAs":   {"flow!", "eventType", "payload", "transform"},
	"recover":    {},
	"verdict":    {"stepId!", "attempt!", "verdict!", "output"},
	"fireTimers": {"at!"},
	"advance":    {"at!"},
	"crash":      {"at!"},
	"cancel":     {"reason"},
	"snapshot":   {},
	"deliver":    {"topic!", "messageId", "message"},
	"drive":      {"execution"},
}

// ActionNames lists the driver actions, sorted.
func ActionNames() []string {
	var out []string
	for k := range actionFields {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// DecodeDriver parses and validates a driver script.
func DecodeDriver(file string, data []byte) (*Driver, error) {
	if len(data) > MaxScriptBytes {
		return nil, &Error{File: file, Reason: fmt.Sprintf("%d bytes exceeds the %d-byte limit", len(data), MaxScriptBytes)}
	}
	if err := checkJSON(file, "", data); err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, &Error{File: file, Reason: "not a JSON object"}
	}
	d := &Driver{}
	fields := map[string]any{"format": &d.Format, "about": &d.About, "clauses": &d.Clauses, "execution": &d.Execution,
		"profile": &d.Profile, "budget": &d.Budget, "timers": &d.Timers, "snapshots": &d.Snapshots, "clock": &d.Clock}
	for k, v := range top {
		if k == "actions" {
			continue
		}
		dst, ok := fields[k]
		if !ok {
			return nil, &Error{File: file, Field: k, Reason: "unknown field"}
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return nil, &Error{File: file, Field: k, Reason: "wrong type: " + typeReason(err)}
		}
	}
	if d.Format != DriverFormat {
		return nil, &Error{File: file, Field: "format", Reason: fmt.Sprintf("got %q, want %q", d.Format, DriverFormat)}
	}
	if d.Execution == "" {
		d.Execution = "e1"
	}
	if d.Clock == 0 {
		d.Clock = DefaultClock
	}
	if d.Profile != "" {
		if _, err := fold.ProfileFor(d.Profile); err != nil {
			return nil, &Error{File: file, Field: "profile", Reason: err.Error()}
		}
	}
	var acts []json.RawMessage
	if err := json.Unmarshal(top["actions"], &acts); err != nil || len(acts) == 0 {
		return nil, &Error{File: file, Field: "actions", Reason: "want a non-empty array of actions"}
	}
	started := false
	for i, raw := range acts {
		p := fmt.Sprintf("actions[%d]", i)
		a, err := decodeAction(file, p, raw)
		if err != nil {
			return nil, err
		}
		switch {
		case a.Do == "start" && started:
			return nil, &Error{File: file, Path: p, Field: "do", Reason: "a driver starts its execution once"}
		case a.Do == "start":
			started = true
		case !started && a.Do != "crash":
			return nil, &Error{File: file, Path: p, Field: "do", Reason: "the first action must be start (a crash may arm before it)"}
		}
		d.Actions = append(d.Actions, a)
	}
	return d, nil
}

func decodeAction(file, path string, raw json.RawMessage) (DriverAction, error) {
	var a DriverAction
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return a, &Error{File: file, Path: path, Reason: "an action is a JSON object"}
	}
	if err := json.Unmarshal(m["do"], &a.Do); err != nil {
		return a, &Error{File: file, Path: path, Field: "do", Reason: "missing or not a string"}
	}
	fields, ok := actionFields[a.Do]
	if !ok {
		return a, &Error{File: file, Path: path, Field: "do", Reason: fmt.Sprintf("unknown action %q (want one of %s)", a.Do, strings.Join(ActionNames(), ", "))}
	}
	allowed := map[string]bool{"do": true}
	for _, f := range fields {
		n := strings.TrimSuffix(f, "!")
		allowed[n] = true
		if strings.HasSuffix(f, "!") {
			if _, ok := m[n]; !ok {
				return a, &Error{File: file, Path: path, Field: n, Reason: fmt.Sprintf("missing (required by %s)", a.Do)}
			}
		}
	}
	for k, v := range m {
		if !allowed[k] {
			return a, &Error{File: file, Path: path, Field: k, Reason: fmt.Sprintf("not a field of %s", a.Do)}
		}
		if k == "do" {
			continue
		}
		one, _ := json.Marshal(map[string]json.RawMessage{k: v})
		var tmp DriverAction
		dec := json.NewDecoder(strings.NewReader(string(one)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&tmp); err != nil {
			return a, &Error{File: file, Path: path, Field: k, Reason: "wrong type: " + typeReason(err)}
		}
		mergeAction(&a, &tmp, k)
	}
	if a.Do == "resumeAs" {
		s, err := Decode(file+" "+path+".flow", a.Flow)
		if err != nil {
			return a, err
		}
		a.Script = s
	}
	if a.Do == "verdict" && a.Verdict != "applied" && a.Verdict != "not-applied" {
		return a, &Error{File: file, Path: path, Field: "verdict", Reason: fmt.Sprintf("got %q, want \"applied\" or \"not-applied\"", a.Verdict)}
	}
	if a.Do == "crash" && a.At < 1 {
		return a, &Error{File: file, Path: path, Field: "at", Reason: "want the 1-based number of the append that fails"}
	}
	return a, nil
}

func mergeAction(a, t *DriverAction, k string) {
	switch k {
	case "input":
		a.Input = t.Input
	case "eventType":
		a.EventType = t.EventType
	case "payload":
		a.Payload = t.Payload
	case "flow":
		a.Flow = t.Flow
	case "transform":
		a.Transform = t.Transform
	case "stepId":
		a.StepID = t.StepID
	case "attempt":
		a.Attempt = t.Attempt
	case "verdict":
		a.Verdict = t.Verdict
	case "output":
		a.Output = t.Output
	case "at":
		a.At = t.At
	case "reason":
		a.Reason = t.Reason
	case "topic":
		a.Topic = t.Topic
	case "messageId":
		a.MessageID = t.MessageID
	case "message":
		a.Message = t.Message
	case "execution":
		a.Execution = t.Execution
	}
}
