package flowscript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Failure is a failed syscall as a flow script sees it. Kind is one of "typed", "untyped",
// "timeout", "cancelled", "quota", "decider", "branch" (a parallel branch failed: Branch and the
// branch's own failure in Cause) or "syscall" (the kernel refused the call).
type Failure struct {
	Kind    string          `json:"kind"`
	Channel string          `json:"channel,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Message string          `json:"message"`
	Branch  *int            `json:"branch,omitempty"`
	Cause   *Failure        `json:"cause,omitempty"`
}

// retryable reports whether a retry may run the step again: an untyped outcome (spec §4.1: a typed
// failure is an answer, served on every re-run).
func (f *Failure) retryable() bool {
	return f.Kind == "untyped" || f.Kind == "timeout" || f.Kind == "cancelled"
}

// Answer is the kernel's answer to one syscall: a value (JSON) or a failure.
type Answer struct {
	Value   json.RawMessage `json:"value,omitempty"`
	Failure *Failure        `json:"failure,omitempty"`
}

// Scope is a list of statements and the names bound when it starts: the script's body (with
// "input" bound), or one branch of a parallel (with the names bound before the parallel).
type Scope struct {
	Body []Stmt
	// Return is the scope's output; nil = the answer of the last statement (null if none).
	Return json.RawMessage
	Env    map[string]json.RawMessage
	// Path locates Body in the script ("body", "body[2].branches[1]").
	Path string
}

// TopScope is the scope of a whole script run with the given execution input.
func TopScope(s *Script, input json.RawMessage) Scope {
	if input == nil {
		input = json.RawMessage("null")
	}
	return Scope{Body: s.Body, Return: s.Return, Env: map[string]json.RawMessage{InputName: input}, Path: "body"}
}

// ActionKind says what a flow does next.
type ActionKind string

// Action kinds.
const (
	ActCall     ActionKind = "call"     // make Syscall with Args; answer it
	ActParallel ActionKind = "parallel" // run Branches (each with its own Machine); answer with the array of their outputs
	ActDone     ActionKind = "done"     // the scope returned Output
	ActFail     ActionKind = "fail"     // the scope failed with Failure
)

// Action is the next thing a scope does.
type Action struct {
	Kind ActionKind
	// Path locates the statement ("body[3]", "body[2].branches[0][1]").
	Path string
	Stmt *Stmt
	// Attempt counts calls of the same statement (1, then 2.. on retry).
	Attempt int
	// Syscall and Args: the call, Args in the JSON shape kernel.Context.Call takes (a superset:
	// task.timeoutMs / task.atMostOnce / task.errors, decide.fails / context / policy).
	Syscall string
	Args    json.RawMessage
	// Branches of a parallel.
	Branches []Scope
	Output   json.RawMessage
	Failure  *Failure
}

// Machine steps through one scope. It is pure: its only inputs are the scope and the answers fed
// to it, so a client replaying a script over the wire and the in-process interpreter make the same
// calls in the same order.
type Machine struct {
	sc      Scope
	env     map[string]json.RawMessage
	pc      int
	attempt int
	last    json.RawMessage
	end     *Action
	cur     *Action
}

// NewMachine starts a machine on a scope.
func NewMachine(sc Scope) *Machine {
	env := make(map[string]json.RawMessage, len(sc.Env))
	for k, v := range sc.Env {
		env[k] = v
	}
	return &Machine{sc: sc, env: env, attempt: 1, last: json.RawMessage("null")}
}

// Next is the step function: given a scope and the answers to the calls made so far, the next
// action. It replays answers through a fresh Machine.
func Next(sc Scope, answers []Answer) (Action, error) {
	m := NewMachine(sc)
	for i, a := range answers {
		act, err := m.Action()
		if err != nil {
			return Action{}, err
		}
		if act.Kind == ActDone || act.Kind == ActFail {
			return Action{}, fmt.Errorf("flowscript: answer %d given after the scope ended", i)
		}
		if err := m.Answer(a); err != nil {
			return Action{}, err
		}
	}
	return m.Action()
}

// Action returns the current action (the same one until Answer is called).
func (m *Machine) Action() (Action, error) {
	if m.end != nil {
		return *m.end, nil
	}
	if m.cur != nil {
		return *m.cur, nil
	}
	if m.pc >= len(m.sc.Body) {
		out := m.last
		if m.sc.Return != nil {
			v, err := resolve(m.sc.Return, m.env)
			if err != nil {
				return Action{}, fmt.Errorf("flowscript: %s return: %w", m.sc.Path, err)
			}
			out = v
		}
		m.end = &Action{Kind: ActDone, Output: out}
		return *m.end, nil
	}
	st := &m.sc.Body[m.pc]
	path := fmt.Sprintf("%s[%d]", m.sc.Path, m.pc)
	if st.Op == "parallel" {
		bs := make([]Scope, len(st.Branches))
		for i, b := range st.Branches {
			bs[i] = Scope{Body: b, Env: m.env, Path: fmt.Sprintf("%s.branches[%d]", path, i)}
		}
		m.cur = &Action{Kind: ActParallel, Path: path, Stmt: st, Attempt: m.attempt, Syscall: "parallel",
			Args: mustJSON(map[string]any{"branches": len(bs)}), Branches: bs}
		return *m.cur, nil
	}
	args, err := callArgs(st, m.env)
	if err != nil {
		return Action{}, fmt.Errorf("flowscript: %s: %w", path, err)
	}
	m.cur = &Action{Kind: ActCall, Path: path, Stmt: st, Attempt: m.attempt, Syscall: st.Op, Args: args}
	return *m.cur, nil
}

// Answer feeds the answer to the current call or parallel.
func (m *Machine) Answer(a Answer) error {
	if m.cur == nil {
		if _, err := m.Action(); err != nil {
			return err
		}
		if m.cur == nil {
			return errors.New("flowscript: answer given after the scope ended")
		}
	}
	st := m.cur.Stmt
	m.cur = nil
	if f := a.Failure; f != nil {
		if (st.Op == "execute" || st.Op == "run") && f.retryable() && m.attempt <= st.Retry {
			m.attempt++
			return nil
		}
		if st.OnError != OnErrorContinue {
			m.end = &Action{Kind: ActFail, Failure: f}
			return nil
		}
		m.bind(st, mustJSON(map[string]any{"failed": f}))
		return nil
	}
	v := a.Value
	if v == nil {
		v = json.RawMessage("null")
	}
	m.bind(st, v)
	return nil
}

func (m *Machine) bind(st *Stmt, v json.RawMessage) {
	if st.Bind != "" {
		m.env[st.Bind] = v
	}
	m.last = v
	m.pc++
	m.attempt = 1
}

// callArgs builds the syscall's JSON arguments with references resolved.
func callArgs(st *Stmt, env map[string]json.RawMessage) (json.RawMessage, error) {
	r := func(v json.RawMessage) (json.RawMessage, error) {
		if v == nil {
			return nil, nil
		}
		return resolve(v, env)
	}
	a := map[string]any{}
	put := func(k string, v json.RawMessage) error {
		x, err := r(v)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		if x != nil {
			a[k] = x
		}
		return nil
	}
	switch st.Op {
	case "execute":
		task := map[string]any{"id": st.ID}
		if st.Kind != "" {
			task["kind"] = st.Kind
		}
		if st.Tool != "" {
			task["toolId"] = st.Tool
		}
		if st.TimeoutMs > 0 {
			task["timeoutMs"] = st.TimeoutMs
		}
		if st.AtMostOnce {
			task["atMostOnce"] = true
		}
		if st.Errors != nil { // declared, even empty (I-KERNEL-12)
			task["errors"] = st.Errors
		}
		a["task"] = task
		if err := put("input", st.Input); err != nil {
			return nil, err
		}
	case "run":
		a["stepId"], a["toolId"] = st.ID, st.Tool
		if err := put("input", st.Input); err != nil {
			return nil, err
		}
	case "decide":
		a["id"] = st.ID
		if st.Fails {
			a["fails"] = true
		}
		for k, v := range map[string]json.RawMessage{"choice": st.Choice, "context": st.Context, "policy": st.Policy} {
			if err := put(k, v); err != nil {
				return nil, err
			}
		}
	case "suspend":
		a["on"] = st.On
		if st.TimeoutMs > 0 {
			a["timeoutMs"] = st.TimeoutMs
		}
		if st.WakeAt > 0 {
			a["wakeAt"] = st.WakeAt
		}
		if st.CorrelationKey != "" {
			a["correlationKey"] = st.CorrelationKey
		}
	case "sleep":
		a["ms"] = st.Ms
	case "sleepUntil":
		a["wakeAt"] = st.WakeAt
	case "emit", "stream", "ui":
		a["eventType"] = st.EventType
		p := st.Payload
		if p == nil {
			p = json.RawMessage("null")
		}
		if err := put("payload", p); err != nil {
			return nil, err
		}
	case "continueAsNew":
		in := st.Input
		if in == nil {
			in = json.RawMessage("null")
		}
		if err := put("input", in); err != nil {
			return nil, err
		}
	case "receive":
		a["topic"] = st.Topic
	case "select":
		a["topics"] = st.Topics
	default:
		return nil, fmt.Errorf("no call shape for %q", st.Op)
	}
	return mustJSON(a), nil
}

// resolve replaces every {"$ref": "name[/pointer]"} in v by the bound value (or the part of it
// the JSON Pointer names).
func resolve(v json.RawMessage, env map[string]json.RawMessage) (json.RawMessage, error) {
	if !strings.Contains(string(v), `"$ref"`) {
		return v, nil
	}
	x, err := decodeAny(v)
	if err != nil {
		return nil, err
	}
	var walk func(any) (any, error)
	walk = func(x any) (any, error) {
		switch t := x.(type) {
		case map[string]any:
			if name, ok := refName(t); ok {
				ref := t["$ref"].(string)
				bound, ok := env[name]
				if !ok {
					return nil, fmt.Errorf("reference to unbound name %q", name)
				}
				bv, err := decodeAny(bound)
				if err != nil {
					return nil, err
				}
				ptr := strings.TrimPrefix(ref, name)
				return pointer(bv, ptr, ref)
			}
			out := make(map[string]any, len(t))
			for k, e := range t {
				r, err := walk(e)
				if err != nil {
					return nil, err
				}
				out[k] = r
			}
			return out, nil
		case []any:
			out := make([]any, len(t))
			for i, e := range t {
				r, err := walk(e)
				if err != nil {
					return nil, err
				}
				out[i] = r
			}
			return out, nil
		}
		return x, nil
	}
	r, err := walk(x)
	if err != nil {
		return nil, err
	}
	return json.Marshal(r)
}

// pointer follows a JSON Pointer (RFC 6901) into v.
func pointer(v any, ptr, ref string) (any, error) {
	if ptr == "" {
		return v, nil
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := v.(type) {
		case map[string]any:
			e, ok := t[tok]
			if !ok {
				return nil, fmt.Errorf("reference %q: no member %q", ref, tok)
			}
			v = e
		case []any:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(t) || fmt.Sprint(i) != tok {
				return nil, fmt.Errorf("reference %q: no element %q", ref, tok)
			}
			v = t[i]
		default:
			return nil, fmt.Errorf("reference %q: %q indexes a scalar", ref, tok)
		}
	}
	return v, nil
}

// decodeAny decodes JSON keeping numbers as written (json.Number).
func decodeAny(v json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	err := dec.Decode(&x)
	return x, err
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("flowscript: " + err.Error())
	}
	return b
}
