package carrier

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// The arguments each syscall takes over the wire (kernel.Context.Call's shapes, docs/wire.md
// "Methods"), as data: what a member holds and whether it is required. checkArgs holds a call to
// them before the kernel sees it, so their shape is the protocol's (-32602, kind params, data.field
// the member's path below params: I-WIRE-6, I-WIRE-48) and never a kernel's judgement: a member
// outside them (a client cannot smuggle envelope fields — metadata, a flowEmit stamp, a sequence —
// through a syscall), a required one absent or null, one of the wrong JSON type, an empty string
// where a name is required, a negative or fractional count. What the kernel judges of a
// well-shaped value (an unknown toolId, a reserved id, a parallel's bounds) stays -32026. A
// syscall the table gains before this list knows it passes its arguments to the kernel, which
// refuses what it does not understand.

// valueKind is what an argument member holds.
type valueKind int

const (
	anyValue    valueKind = iota // any JSON value, null included
	nameValue                    // a non-empty string
	textValue                    // a string
	countValue                   // a non-negative integer (a double with no fraction, up to 2^53)
	boolValue                    // true or false
	namesValue                   // an array of names (non-empty strings)
	objectValue                  // an object of the members listed
)

// argShape is one member of a syscall's arguments.
type argShape struct {
	name     string
	kind     valueKind
	required bool // absent or null is "required" (anyValue: absent only)
	nonEmpty bool // namesValue: at least one name
	// unlessKind: a required member that is not required when the object's kind member is this
	// (a human step's task has no toolId: its answer is the gate's)
	unlessKind string
	members    []argShape // objectValue: its members
	oneOf      []string   // objectValue: exactly one of these members is given
}

func (a argShape) names() []string {
	out := make([]string, len(a.members))
	for i, m := range a.members {
		out[i] = m.name
	}
	return out
}

// message is the error's message member: {"message": a non-empty string}.
var message = argShape{kind: objectValue, members: []argShape{{name: "message", kind: nameValue, required: true}}}

func named(name string, a argShape) argShape { a.name = name; return a }

var taskShape = argShape{name: "task", kind: objectValue, required: true, members: []argShape{
	{name: "id", kind: nameValue, required: true}, {name: "kind", kind: textValue}, {name: "toolId", kind: nameValue, required: true, unlessKind: "human"},
	{name: "timeoutMs", kind: countValue}, {name: "atMostOnce", kind: boolValue}, {name: "errors", kind: namesValue},
}}

// argShapes are the arguments of each syscall (the object params.args).
var argShapes = map[string]argShape{
	"execute": {kind: objectValue, members: []argShape{taskShape, {name: "input"}}},
	"run":     {kind: objectValue, members: []argShape{{name: "stepId", kind: nameValue, required: true}, {name: "toolId", kind: nameValue, required: true}, {name: "input"}}},
	"decide": {kind: objectValue, members: []argShape{{name: "id", kind: nameValue, required: true}, {name: "choice"}, named("error", message),
		{name: "context"}, {name: "policy"}}, oneOf: []string{"choice", "error"}},
	"parallel": {kind: objectValue, members: []argShape{{name: "branches", kind: countValue},
		{name: "end", kind: objectValue, members: []argShape{{name: "output"}, named("error", message)}}, {name: "join", kind: boolValue}},
		oneOf: []string{"branches", "end", "join"}},
	"suspend": {kind: objectValue, members: []argShape{{name: "on", kind: nameValue, required: true}, {name: "timeoutMs", kind: countValue},
		{name: "wakeAt", kind: countValue}, {name: "correlationKey", kind: textValue}}},
	"sleep":         {kind: objectValue, members: []argShape{{name: "ms", kind: countValue, required: true}}},
	"sleepUntil":    {kind: objectValue, members: []argShape{{name: "wakeAt", kind: countValue, required: true}}},
	"emit":          channelShape,
	"stream":        channelShape,
	"ui":            channelShape,
	"continueAsNew": {kind: objectValue, members: []argShape{{name: "input"}}},
	"receive":       {kind: objectValue, members: []argShape{{name: "topic", kind: nameValue, required: true}}},
	"select":        {kind: objectValue, members: []argShape{{name: "topics", kind: namesValue, required: true, nonEmpty: true}}},
}

var channelShape = argShape{kind: objectValue, members: []argShape{{name: "eventType", kind: nameValue, required: true}, {name: "payload"}}}

// ArgError is arguments that do not have their syscall's shape: Field is the member's path below
// params ("args.task.toolId").
type ArgError struct{ Field, Msg string }

func (e *ArgError) Error() string { return e.Msg }

// checkArgs holds a syscall's arguments to their shape (argShapes); absent or null arguments are
// an empty object.
func checkArgs(syscall string, args json.RawMessage) *ArgError {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		t = []byte("{}")
	}
	shape, known := argShapes[syscall]
	if !known {
		if !eachMember(t, func(_, _ []byte) bool { return true }) {
			return &ArgError{"args", "params.args must be an object"}
		}
		return nil
	}
	return shape.check("args", t)
}

// check holds the value v of the member at path to the shape a.
func (a argShape) check(path string, v []byte) *ArgError {
	want := func(what string) *ArgError {
		return &ArgError{path, fmt.Sprintf("params.%s: want %s, got JSON %s", path, what, jsonKind(v))}
	}
	switch a.kind {
	case nameValue:
		if v[0] != '"' {
			return want("a non-empty string")
		}
		if string(v) == `""` {
			return &ArgError{path, fmt.Sprintf("params.%s is required (a non-empty string), got \"\"", path)}
		}
	case textValue:
		if v[0] != '"' {
			return want("a string")
		}
	case boolValue:
		if string(v) != "true" && string(v) != "false" {
			return want("true or false")
		}
	case countValue:
		if !isCount(v) {
			return want("a non-negative integer")
		}
	case namesValue:
		return a.checkNames(path, v)
	case objectValue:
		return a.checkObject(path, v)
	}
	return nil
}

func (a argShape) checkNames(path string, v []byte) *ArgError {
	var names []json.RawMessage
	if v[0] != '[' || json.Unmarshal(v, &names) != nil {
		return &ArgError{path, fmt.Sprintf("params.%s: want an array of non-empty strings, got JSON %s", path, jsonKind(v))}
	}
	if a.nonEmpty && len(names) == 0 {
		return &ArgError{path, fmt.Sprintf("params.%s is required (at least one non-empty string), got []", path)}
	}
	for i, n := range names {
		if e := (argShape{kind: nameValue}).check(fmt.Sprintf("%s[%d]", path, i), n); e != nil {
			return e
		}
	}
	return nil
}

func (a argShape) checkObject(path string, v []byte) *ArgError {
	var bad []string
	given := make([][]byte, len(a.members)) // the value of each member (the last, as a decoder keeps)
	ok := eachMember(v, func(k, val []byte) bool {
		name := memberName(k)
		i := slices.IndexFunc(a.members, func(m argShape) bool { return m.name == name })
		if i < 0 {
			bad = append(bad, name)
		} else {
			given[i] = val
		}
		return true
	})
	if !ok {
		return &ArgError{path, fmt.Sprintf("params.%s must be an object", path)}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		where := "params." + path
		if path == "args" {
			return &ArgError{path + "." + bad[0], fmt.Sprintf("%s: unknown field %q (this syscall takes %v)", where, bad[0], a.names())}
		}
		return &ArgError{path + "." + bad[0], fmt.Sprintf("%s: unknown field %q (it takes %v)", where, bad[0], a.names())}
	}
	var present []string
	for i, m := range a.members {
		val, sub := given[i], path+"."+m.name
		absent := val == nil || m.kind != anyValue && string(val) == "null"
		if absent {
			if m.required && (m.unlessKind == "" || string(kindOf(a, given)) != `"`+m.unlessKind+`"`) {
				return &ArgError{sub, fmt.Sprintf("params.%s is required (%s)", sub, m.kind.what())}
			}
			continue
		}
		if slices.Contains(a.oneOf, m.name) {
			present = append(present, m.name)
		}
		if e := m.check(sub, val); e != nil {
			return e
		}
	}
	switch {
	case len(a.oneOf) > 0 && len(present) == 0:
		return &ArgError{path + "." + a.oneOf[0], fmt.Sprintf("params.%s: give one of %s", path, strings.Join(a.oneOf, ", "))}
	case len(present) > 1:
		return &ArgError{path + "." + present[1], fmt.Sprintf("params.%s: give one of %s, not %s", path, strings.Join(a.oneOf, ", "), strings.Join(present, " and "))}
	}
	return nil
}

// kindOf is the raw value of the object's kind member, when it has one.
func kindOf(a argShape, given [][]byte) []byte {
	if i := slices.IndexFunc(a.members, func(m argShape) bool { return m.name == "kind" }); i >= 0 {
		return given[i]
	}
	return nil
}

func (k valueKind) what() string {
	switch k {
	case nameValue:
		return "a non-empty string"
	case textValue:
		return "a string"
	case countValue:
		return "a non-negative integer"
	case boolValue:
		return "true or false"
	case namesValue:
		return "an array of non-empty strings"
	case objectValue:
		return "an object"
	}
	return "a value"
}

// isCount reports whether v is a JSON number holding a non-negative integer a double holds exactly.
func isCount(v []byte) bool {
	if len(v) == 0 || v[0] == '-' || v[0] < '0' || v[0] > '9' {
		return false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return err == nil && f >= 0 && f == math.Trunc(f) && f <= 1<<53
}

// jsonKind names the JSON type of v for a message.
func jsonKind(v []byte) string {
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '"':
		return "string " + clip(string(v))
	case v[0] == '{':
		return "object"
	case v[0] == '[':
		return "array"
	case v[0] == 't' || v[0] == 'f':
		return "boolean " + string(v)
	case v[0] == 'n':
		return "null"
	}
	return "number " + clip(string(v))
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// checkBudget refuses a per-execution budget (execution.start's budget, I-WIRE-17) whose caps are
// not finite and non-negative.
func checkBudget(b kernel.Budget) *bridge.RPCError {
	dims := make([]string, 0, len(b))
	for d := range b {
		dims = append(dims, d)
	}
	sort.Strings(dims)
	for _, d := range dims {
		if v := b[d]; math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || d == "" {
			return rpcErr(CodeInvalidParams, "params", fmt.Sprintf("execution.start: params.budget.%s: want a finite, non-negative number, got %v", d, v), "field", "budget."+d)
		}
	}
	return nil
}
