package flowscript

import (
	"encoding/json"
	"fmt"
)

// Format is the version tag of the current flow-script format, the one new scripts are written in.
// Version 2 adds, to version 1, non-JSON numbers in emit payloads ({"$float": "NaN"}, nonjson.go)
// and the latencyUs input member every fake honours (fakes.go).
const Format = "loom-flowscript/2"

// Format1 is the first version; a script that says it is decoded and run unchanged, and may use
// neither addition of version 2.
const Format1 = "loom-flowscript/1"

// Formats lists the versions Decode reads, oldest first.
func Formats() []string { return []string{Format1, Format} }

// InputName is the name bound to the execution's input before the first statement.
const InputName = "input"

// DeciderThrows is the message of the failure a decide with fails: true throws from its decider.
const DeciderThrows = "fake: decider throws"

// Script is a flow as data: its id, the statements it runs in order and the value it returns.
type Script struct {
	// Format must be Format.
	Format string `json:"format"`
	// ID is the flow id (EXECUTION_STARTED flowId, every envelope's workflowId).
	ID string `json:"id"`
	// CodeHash, when set, is recorded as EXECUTION_STARTED codeHash (1.23.0).
	CodeHash string `json:"codeHash,omitempty"`
	// Features lists the Wave 2 feature flags the script needs (continueAsNew, receive, select).
	Features []string `json:"features,omitempty"`
	// Body is the program.
	Body []Stmt `json:"body"`
	// Return is the flow's output (literals and references); absent = the answer of the last
	// statement (null when the body is empty).
	Return json.RawMessage `json:"return,omitempty"`
}

// Stmt is one statement: a syscall (Op) with literal arguments. Which fields an Op takes is the
// table opFields; any other field is refused.
type Stmt struct {
	Op string `json:"op"`
	// Bind names the statement's answer for later statements ({"$ref": name}).
	Bind string `json:"bind,omitempty"`

	// execute / run: step id, step kind, the fake's name (toolId), input, options.
	ID         string          `json:"id,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	TimeoutMs  int64           `json:"timeoutMs,omitempty"`
	AtMostOnce bool            `json:"atMostOnce,omitempty"`
	Errors     []string        `json:"errors,omitempty"` // step-level typed failure channels
	Retry      int             `json:"retry,omitempty"`  // extra attempts after an untyped failure
	OnError    string          `json:"onError,omitempty"`

	// decide: the choice (literals and references), or Fails: the decider throws (DeciderThrows).
	Choice  json.RawMessage `json:"choice,omitempty"`
	Fails   bool            `json:"fails,omitempty"`
	Context json.RawMessage `json:"context,omitempty"`
	Policy  json.RawMessage `json:"policy,omitempty"`

	// suspend / sleep / sleepUntil.
	On             string `json:"on,omitempty"`
	WakeAt         int64  `json:"wakeAt,omitempty"`
	CorrelationKey string `json:"correlationKey,omitempty"`
	Ms             int64  `json:"ms,omitempty"`

	// emit / stream / ui.
	EventType string          `json:"eventType,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`

	// receive / select.
	Topic  string   `json:"topic,omitempty"`
	Topics []string `json:"topics,omitempty"`

	// parallel: each branch is a list of statements; its answer is the array of branch answers.
	Branches [][]Stmt `json:"branches,omitempty"`
}

// OnError values: what a failed execute/run/decide does after its retries.
const (
	OnErrorFail     = "fail"     // the flow fails (EXECUTION_FAILED); the default
	OnErrorContinue = "continue" // the failure is bound as {"failed": Failure} and the flow goes on
)

// common fields every op takes.
var common = []string{"op", "bind"}

// opFields lists, per syscall, the fields a statement may carry (besides op and bind) and the
// required ones (marked by a trailing "!").
var opFields = map[string][]string{
	"execute":       {"id!", "tool", "kind", "input", "timeoutMs", "atMostOnce", "errors", "retry", "onError"},
	"run":           {"id!", "tool!", "input", "retry", "onError"},
	"decide":        {"id!", "choice", "fails", "context", "policy", "onError"},
	"parallel":      {"branches!", "onError"},
	"suspend":       {"on!", "timeoutMs", "wakeAt", "correlationKey"},
	"sleep":         {"ms!"},
	"sleepUntil":    {"wakeAt!"},
	"emit":          {"eventType!", "payload"},
	"stream":        {"eventType!", "payload"},
	"ui":            {"eventType!", "payload"},
	"continueAsNew": {"input"},
	"receive":       {"topic!"},
	"select":        {"topics!"},
}

// Error is a bad script or driver: the file, where in it (a statement path such as
// "body[3].branches[1][0]" or an action index such as "actions[2]"), the field and why.
type Error struct {
	File   string
	Path   string
	Field  string
	Reason string
}

func (e *Error) Error() string {
	s := e.File
	if s == "" {
		s = "script"
	}
	if e.Path != "" {
		s += ": " + e.Path
	}
	if e.Field != "" {
		s += ": field " + fmt.Sprintf("%q", e.Field)
	}
	return s + ": " + e.Reason
}
