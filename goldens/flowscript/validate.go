package flowscript

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
)

// Validate checks a decoded script: known syscalls and fakes, the features a Wave 2 syscall
// needs, names bound before they are referenced (a branch sees the names bound before its
// parallel, never a sibling's), and sane numbers.
func Validate(file string, s *Script) error {
	for i, f := range s.Features {
		if !slices.Contains([]string{"continueAsNew", "receive", "select"}, f) {
			return &Error{File: file, Field: fmt.Sprintf("features[%d]", i), Reason: fmt.Sprintf("unknown feature %q", f)}
		}
	}
	bound := map[string]bool{InputName: true}
	if err := validateBody(file, "body", s, s.Body, bound); err != nil {
		return err
	}
	if s.Return != nil {
		if err := checkRefs(s.Return, bound); err != nil {
			return &Error{File: file, Field: "return", Reason: err.Error()}
		}
		if err := checkFloats(s.Return, false, s.Format); err != nil {
			return &Error{File: file, Field: "return", Reason: err.Error()}
		}
	}
	return nil
}

func validateBody(file, path string, s *Script, body []Stmt, bound map[string]bool) error {
	for i := range body {
		st := &body[i]
		p := fmt.Sprintf("%s[%d]", path, i)
		if err := validateStmt(file, p, s, st, bound); err != nil {
			return err
		}
		if st.Bind != "" {
			bound[st.Bind] = true
		}
	}
	return nil
}

func validateStmt(file, p string, s *Script, st *Stmt, bound map[string]bool) error {
	bad := func(field, reason string, args ...any) error {
		return &Error{File: file, Path: p, Field: field, Reason: fmt.Sprintf(reason, args...)}
	}
	sc, ok := manifest.LookupSyscall(st.Op)
	if !ok {
		return bad("op", "unknown syscall %q", st.Op)
	}
	if sc.Feature != "" && !slices.Contains(s.Features, sc.Feature) {
		return bad("op", "%s is a Wave 2 syscall: list %q in the script's features", st.Op, sc.Feature)
	}
	if st.Bind != "" {
		if err := checkName(st.Bind); err != nil {
			return bad("bind", "%v", err)
		}
	}
	switch st.OnError {
	case "", OnErrorFail, OnErrorContinue:
	default:
		return bad("onError", "got %q, want %q or %q", st.OnError, OnErrorFail, OnErrorContinue)
	}
	if st.TimeoutMs < 0 || st.Retry < 0 || st.Ms < 0 || st.WakeAt < 0 {
		return bad("", "negative number")
	}
	for field, v := range map[string]json.RawMessage{"input": st.Input, "choice": st.Choice, "payload": st.Payload, "context": st.Context, "policy": st.Policy} {
		if v == nil {
			continue
		}
		if err := checkRefs(v, bound); err != nil {
			return bad(field, "%v", err)
		}
		payload := field == "payload" && (st.Op == "emit" || st.Op == "stream" || st.Op == "ui")
		if err := checkFloats(v, payload, s.Format); err != nil {
			return bad(field, "%v", err)
		}
	}
	switch st.Op {
	case "execute", "run":
		if st.ID == "" {
			return bad("id", "empty step id")
		}
		if st.Kind == "human" {
			if st.Tool != "" {
				return bad("tool", "a human step is answered by a resume on the gate named by its id, not by an effect")
			}
			break
		}
		if _, ok := LookupFake(st.Tool); !ok {
			return bad("tool", "unknown fake %q (want one of %s)", st.Tool, strings.Join(FakeNames(), ", "))
		}
	case "decide":
		if st.ID == "" {
			return bad("id", "empty decision id")
		}
		if st.Choice == nil && !st.Fails {
			return bad("choice", "missing (or set fails: true for a decider that throws)")
		}
		if st.Choice != nil && st.Fails {
			return bad("fails", "a decider that throws has no choice")
		}
	case "suspend":
		if st.On == "" {
			return bad("on", "empty gate")
		}
	case "emit", "stream", "ui":
		if st.EventType == "" {
			return bad("eventType", "empty event type")
		}
	case "receive":
		if st.Topic == "" {
			return bad("topic", "empty topic")
		}
	case "select":
		if len(st.Topics) == 0 || slices.Contains(st.Topics, "") {
			return bad("topics", "want non-empty topics")
		}
	case "parallel":
		if len(st.Branches) == 0 {
			return bad("branches", "a parallel needs at least one branch")
		}
		for i, b := range st.Branches {
			inner := make(map[string]bool, len(bound))
			for k := range bound {
				inner[k] = true
			}
			for _, bs := range b {
				if bs.Op == "suspend" || bs.Op == "sleep" || bs.Op == "sleepUntil" || bs.Op == "receive" || bs.Op == "select" || bs.Op == "continueAsNew" {
					return &Error{File: file, Path: fmt.Sprintf("%s.branches[%d]", p, i), Field: "op",
						Reason: fmt.Sprintf("%s is not allowed inside a parallel branch (the kernel refuses a park there, I-KERNEL-6)", bs.Op)}
				}
			}
			if err := validateBody(file, fmt.Sprintf("%s.branches[%d]", p, i), s, b, inner); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkName(n string) error {
	if n == "" || strings.ContainsAny(n, "/#") || n == InputName {
		return fmt.Errorf("name %q: want a non-empty name without '/' or '#', not %q", n, InputName)
	}
	return nil
}

// checkRefs walks a literal value and refuses references to names not bound yet.
func checkRefs(v json.RawMessage, bound map[string]bool) error {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	var walk func(any) error
	walk = func(x any) error {
		switch t := x.(type) {
		case map[string]any:
			if name, ok := refName(t); ok {
				if !bound[name] {
					return fmt.Errorf("reference to unbound name %q", name)
				}
				return nil
			}
			for _, e := range t {
				if err := walk(e); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range t {
				if err := walk(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(x)
}

// refName recognises {"$ref": "name"} and {"$ref": "name/json/pointer"}.
func refName(m map[string]any) (string, bool) {
	if len(m) != 1 {
		return "", false
	}
	r, ok := m["$ref"].(string)
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(r, "/")
	return name, true
}
