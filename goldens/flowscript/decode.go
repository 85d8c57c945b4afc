package flowscript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
)

// Limits on hostile input.
const (
	MaxScriptBytes = 4 << 20 // a script or driver file
	MaxDepth       = 64      // JSON nesting of any value, parallel nesting included
	MaxStatements  = 10000   // statements in a script, all branches included
)

// Decode parses and validates a flow script. file names the source in errors.
func Decode(file string, data []byte) (*Script, error) {
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
	for k := range top {
		if !slices.Contains([]string{"format", "id", "codeHash", "features", "body", "return"}, k) {
			return nil, &Error{File: file, Field: k, Reason: "unknown field"}
		}
	}
	s := &Script{}
	for _, f := range []struct {
		name string
		dst  any
	}{{"format", &s.Format}, {"id", &s.ID}, {"codeHash", &s.CodeHash}, {"features", &s.Features}} {
		if raw, ok := top[f.name]; ok {
			if err := json.Unmarshal(raw, f.dst); err != nil {
				return nil, &Error{File: file, Field: f.name, Reason: "wrong type: " + typeReason(err)}
			}
		}
	}
	if raw, ok := top["return"]; ok {
		s.Return = raw
	}
	if !slices.Contains(Formats(), s.Format) {
		return nil, &Error{File: file, Field: "format", Reason: fmt.Sprintf("got %q, want one of %s", s.Format, strings.Join(Formats(), ", "))}
	}
	if s.ID == "" {
		return nil, &Error{File: file, Field: "id", Reason: "missing flow id"}
	}
	raw, ok := top["body"]
	if !ok {
		return nil, &Error{File: file, Field: "body", Reason: "missing"}
	}
	count := 0
	body, err := decodeBody(file, "body", raw, 0, &count)
	if err != nil {
		return nil, err
	}
	s.Body = body
	if err := Validate(file, s); err != nil {
		return nil, err
	}
	return s, nil
}

func decodeBody(file, path string, raw json.RawMessage, depth int, count *int) ([]Stmt, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, &Error{File: file, Path: path, Reason: "want an array of statements"}
	}
	out := make([]Stmt, 0, len(items))
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		*count++
		if *count > MaxStatements {
			return nil, &Error{File: file, Path: p, Reason: fmt.Sprintf("more than %d statements", MaxStatements)}
		}
		st, err := decodeStmt(file, p, it, depth, count)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func decodeStmt(file, path string, raw json.RawMessage, depth int, count *int) (Stmt, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return Stmt{}, &Error{File: file, Path: path, Reason: "a statement is a JSON object"}
	}
	var st Stmt
	opRaw, ok := m["op"]
	if !ok {
		return st, &Error{File: file, Path: path, Field: "op", Reason: "missing"}
	}
	if err := json.Unmarshal(opRaw, &st.Op); err != nil {
		return st, &Error{File: file, Path: path, Field: "op", Reason: "want a string"}
	}
	fields, ok := opFields[st.Op]
	if !ok {
		return st, &Error{File: file, Path: path, Field: "op", Reason: fmt.Sprintf("unknown syscall %q (want one of %s)", st.Op, strings.Join(syscallNames(), ", "))}
	}
	allowed := map[string]bool{"op": true, "bind": true}
	for _, f := range fields {
		name := strings.TrimSuffix(f, "!")
		allowed[name] = true
		if strings.HasSuffix(f, "!") {
			if _, ok := m[name]; !ok {
				return st, &Error{File: file, Path: path, Field: name, Reason: fmt.Sprintf("missing (required by %s)", st.Op)}
			}
		}
	}
	for k := range m {
		if !allowed[k] {
			return st, &Error{File: file, Path: path, Field: k, Reason: fmt.Sprintf("not a field of %s", st.Op)}
		}
	}
	for k, v := range m {
		if k == "op" || k == "branches" {
			continue
		}
		if err := decodeField(&st, k, v); err != nil {
			return st, &Error{File: file, Path: path, Field: k, Reason: "wrong type: " + typeReason(err)}
		}
	}
	if br, ok := m["branches"]; ok {
		if depth+1 > MaxDepth {
			return st, &Error{File: file, Path: path, Field: "branches", Reason: fmt.Sprintf("parallel nested deeper than %d", MaxDepth)}
		}
		var bs []json.RawMessage
		if err := json.Unmarshal(br, &bs); err != nil {
			return st, &Error{File: file, Path: path, Field: "branches", Reason: "want an array of statement arrays"}
		}
		for i, b := range bs {
			body, err := decodeBody(file, fmt.Sprintf("%s.branches[%d]", path, i), b, depth+1, count)
			if err != nil {
				return st, err
			}
			st.Branches = append(st.Branches, body)
		}
	}
	return st, nil
}

// decodeField decodes one field into the statement, strictly typed.
func decodeField(st *Stmt, k string, v json.RawMessage) error {
	var dst any
	switch k {
	case "bind":
		dst = &st.Bind
	case "id":
		dst = &st.ID
	case "kind":
		dst = &st.Kind
	case "tool":
		dst = &st.Tool
	case "input":
		st.Input = v
		return nil
	case "timeoutMs":
		dst = &st.TimeoutMs
	case "atMostOnce":
		dst = &st.AtMostOnce
	case "errors":
		dst = &st.Errors
	case "retry":
		dst = &st.Retry
	case "onError":
		dst = &st.OnError
	case "choice":
		st.Choice = v
		return nil
	case "fails":
		dst = &st.Fails
	case "context":
		st.Context = v
		return nil
	case "policy":
		st.Policy = v
		return nil
	case "on":
		dst = &st.On
	case "wakeAt":
		dst = &st.WakeAt
	case "correlationKey":
		dst = &st.CorrelationKey
	case "ms":
		dst = &st.Ms
	case "eventType":
		dst = &st.EventType
	case "payload":
		st.Payload = v
		return nil
	case "topic":
		dst = &st.Topic
	case "topics":
		dst = &st.Topics
	default:
		return fmt.Errorf("unknown field")
	}
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return errors.New("null is not a value of this field")
	}
	return json.Unmarshal(v, dst)
}

func typeReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("got JSON %s, want %s", te.Value, te.Type)
	}
	return err.Error()
}

func syscallNames() []string {
	var out []string
	for _, s := range manifest.Syscalls() {
		out = append(out, s.Name)
	}
	return out
}

// checkJSON refuses text that is not one JSON value, nests deeper than MaxDepth or holds a
// "__proto__" key (a prototype-pollution vector for implementations in JavaScript).
func checkJSON(file, path string, data []byte) error {
	if !json.Valid(data) {
		var x any
		err := json.Unmarshal(data, &x)
		return &Error{File: file, Path: path, Reason: fmt.Sprintf("invalid JSON: %v", err)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	depth := 0
	// expectKey[i] tracks whether the next string token at depth i is an object key
	var stack []bool
	keyNext := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return &Error{File: file, Path: path, Reason: "invalid JSON: " + err.Error()}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				depth++
				if depth > MaxDepth {
					return &Error{File: file, Path: path, Reason: fmt.Sprintf("JSON nested deeper than %d", MaxDepth)}
				}
				stack = append(stack, t == '{')
				keyNext = t == '{'
				continue
			default:
				depth--
				stack = stack[:len(stack)-1]
			}
		case string:
			if keyNext && t == "__proto__" {
				return &Error{File: file, Path: path, Field: "__proto__", Reason: "a \"__proto__\" key is refused"}
			}
		}
		// after a value (or a key) inside an object, alternate key/value
		if len(stack) > 0 && stack[len(stack)-1] {
			keyNext = !keyNext
			if _, isDelim := tok.(json.Delim); isDelim {
				keyNext = true // a closed container was a value: a key comes next
			}
		} else {
			keyNext = false
		}
	}
	return nil
}
