package carrier

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/jsonstrict"
)

// The hot path of a syscall walks its params and args instead of decoding them; these tests hold
// it to the decoders it replaced, which stay the reference (differential: the walk against the
// simple model, on hand-picked inputs and under the fuzzer).

var paramsCorpus = []string{
	`{"executionId":"e","driver":"t","args":{"task":{"id":"s1","toolId":"echo"},"input":1}}`,
	`{"args":{"task":{"id":"s1","toolId":"echo"},"input":1},"driver":"t","executionId":"e"}`,
	` { "executionId" : "e" , "driver" : "t" , "args" : { "a" : [1, {"b": "}"}] } } `,
	`{"executionId":"e","driver":"t","args":null}`,
	`{"executionId":"e","driver":"t"}`,
	`{}`, `null`, ``, `[]`, `"x"`, `1`,
	`{"executionId":"e","executionId":"f"}`,
	`{"executionId":"\u0065","driver":"t"}`,
	`{"executionId":"é","driver":"t"}`,
	`{"ExecutionID":"e","driver":"t"}`,
	`{"executionId":1,"driver":"t"}`,
	`{"executionId":null,"driver":"t"}`,
	`{"executionId":"e","driver":"t","branch":[0,1]}`,
	`{"executionId":"e","driver":"t","branch":null}`,
	`{"executionId":"e","driver":"t","extra":true}`,
	`{"executionId":"e","driver":"t","args":{"x":"\"}"}}`,
	`{"executionId":"e"} {}`,
	`{"executionId":"e",}`,
	`{"executionId" "e"}`,
	`{"executionId":"e"`,
}

// strictParams is the reference: the strict decoder alone.
func strictParams(raw string) (syscallParams, error) {
	var p syscallParams
	err := decodeStrict(json.RawMessage(raw), &p)
	return p, err
}

func sameParams(t *testing.T, raw string) {
	t.Helper()
	if !json.Valid([]byte(raw)) && raw != "" {
		return // params reach the walk only from a request body that decoded
	}
	got, gerr := decodeSyscallParams(json.RawMessage(raw))
	want, werr := strictParams(raw)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
		t.Errorf("decodeSyscallParams(%s) = %+v, %v, want %+v, %v", raw, got, gerr, want, werr)
	}
}

func TestDecodeSyscallParamsIsTheStrictDecoder(t *testing.T) {
	for _, raw := range paramsCorpus {
		sameParams(t, raw)
	}
}

func FuzzDecodeSyscallParams(f *testing.F) {
	for _, raw := range paramsCorpus {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) { sameParams(t, raw) })
}

// checkArgsModel is checkArgs by decoding: each object into a map, its members looked up by name
// (the walk's model, which the fuzzer holds it to).
func checkArgsModel(syscall string, args json.RawMessage) *ArgError {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		t = []byte("{}")
	}
	var m map[string]json.RawMessage
	if t[0] != '{' || json.Unmarshal(t, &m) != nil {
		return &ArgError{"args", "params.args must be an object"}
	}
	shape, known := argShapes[syscall]
	if !known {
		return nil
	}
	return modelObject(shape, "args", m)
}

func modelValue(a argShape, path string, v json.RawMessage) *ArgError {
	var x any
	_ = json.Unmarshal(v, &x)
	want := func(what string) *ArgError {
		return &ArgError{path, fmt.Sprintf("params.%s: want %s, got JSON %s", path, what, jsonKind(v))}
	}
	switch a.kind {
	case nameValue:
		s, ok := x.(string)
		if !ok {
			return want("a non-empty string")
		}
		if s == "" && string(v) == `""` {
			return &ArgError{path, fmt.Sprintf("params.%s is required (a non-empty string), got \"\"", path)}
		}
	case textValue:
		if _, ok := x.(string); !ok {
			return want("a string")
		}
	case boolValue:
		if _, ok := x.(bool); !ok {
			return want("true or false")
		}
	case countValue:
		f, ok := x.(float64)
		if !ok || f < 0 || f != float64(int64(f)) || f > 1<<53 || v[0] == '-' {
			return want("a non-negative integer")
		}
	case namesValue:
		var names []json.RawMessage
		if json.Unmarshal(v, &names) != nil || v[0] != '[' {
			return &ArgError{path, fmt.Sprintf("params.%s: want an array of non-empty strings, got JSON %s", path, jsonKind(v))}
		}
		if a.nonEmpty && len(names) == 0 {
			return &ArgError{path, fmt.Sprintf("params.%s is required (at least one non-empty string), got []", path)}
		}
		for i, n := range names {
			if e := modelValue(argShape{kind: nameValue}, fmt.Sprintf("%s[%d]", path, i), n); e != nil {
				return e
			}
		}
	case objectValue:
		var m map[string]json.RawMessage
		if v[0] != '{' || json.Unmarshal(v, &m) != nil {
			return &ArgError{path, fmt.Sprintf("params.%s must be an object", path)}
		}
		return modelObject(a, path, m)
	}
	return nil
}

func modelObject(a argShape, path string, m map[string]json.RawMessage) *ArgError {
	var bad []string
	for k := range m {
		if !slices.Contains(a.names(), k) {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		takes := "this syscall takes"
		if path != "args" {
			takes = "it takes"
		}
		return &ArgError{path + "." + bad[0], fmt.Sprintf("params.%s: unknown field %q (%s %v)", path, bad[0], takes, a.names())}
	}
	var present []string
	for _, mem := range a.members {
		v, ok := m[mem.name]
		sub := path + "." + mem.name
		if !ok || mem.kind != anyValue && string(v) == "null" {
			if mem.required && !(mem.unlessKind != "" && string(m["kind"]) == `"`+mem.unlessKind+`"`) {
				return &ArgError{sub, fmt.Sprintf("params.%s is required (%s)", sub, mem.kind.what())}
			}
			continue
		}
		if slices.Contains(a.oneOf, mem.name) {
			present = append(present, mem.name)
		}
		if e := modelValue(mem, sub, v); e != nil {
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

var argsCorpus = []string{
	`{"task":{"id":"s1","toolId":"echo"},"input":1}`,
	`{"task":{"id":"s1","kind":"human"},"input":1}`, `{"task":{"id":"s1"},"input":1}`, `{"task":{"id":"","toolId":"echo"}}`,
	`{"task":{"id":"s1","toolId":"echo","errors":[]}}`, `{"task":{"id":"s1","toolId":"echo","errors":"declined"}}`,
	`{"task":{"id":"s1","toolId":"echo","errors":["a",""]}}`, `{"task":{"id":"s1","toolId":"echo","timeoutMs":-1}}`,
	`{"task":{"id":"s1","toolId":"echo","timeoutMs":1.5}}`, `{"task":{"id":"s1","toolId":"echo","timeoutMs":1e3,"atMostOnce":1}}`,
	`{"id":"d","choice":null}`, `{"id":"d"}`, `{"id":"d","choice":1,"error":{"message":"x"}}`, `{"id":"d","error":{}}`,
	`{"branches":2}`, `{"branches":2,"join":true}`, `{"end":{"output":1,"error":{"message":"m"}}}`, `{"end":{"error":{"message":""}}}`,
	`{"eventType":""}`, `{"eventType":"t","payload":null}`, `{"payload":1}`, `{"ms":-5}`, `{"ms":null}`, `{"on":"g","timeoutMs":null}`,
	`{"topics":[]}`, `{"topics":["a"]}`, `{"topic":7}`,
	`{"task":{"id":"s1","kind":"tool","toolId":"echo","fn":1},"input":1}`,
	`{"task":null}`, `{"task":"x"}`, `{"task":[1]}`, `{"task":{}}`,
	`{"task":{"id":"a"},"task":{"sequence":1}}`,
	`{"task":{"sequence":1},"task":{"id":"a"}}`,
	`{"input":1,"metadata":{},"sequence":2}`,
	`{"t\u0061sk":{"id":"a"}}`, `{"tâsk":1}`,
	`{}`, `null`, ``, ` `, `[]`, `"x"`, `1`,
}

func TestCheckArgsIsTheMapCheck(t *testing.T) {
	for _, syscall := range []string{"execute", "run", "decide", "emit", "parallel", "suspend", "sleep", "select", "receive", "unknown"} {
		for _, raw := range argsCorpus {
			sameArgs(t, syscall, raw)
		}
	}
}

func sameArgs(t *testing.T, syscall, raw string) {
	t.Helper()
	if !json.Valid([]byte(raw)) && raw != "" && raw != " " {
		return
	}
	got, want := checkArgs(syscall, json.RawMessage(raw)), checkArgsModel(syscall, json.RawMessage(raw))
	if (got == nil) != (want == nil) || got != nil && *got != *want {
		t.Errorf("checkArgs(%s, %s) = %+v, want %+v", syscall, raw, got, want)
	}
}

func FuzzCheckArgs(f *testing.F) {
	for _, raw := range argsCorpus {
		f.Add("execute", raw)
	}
	f.Fuzz(func(t *testing.T, syscall, raw string) { sameArgs(t, syscall, raw) })
}

func TestEachMemberRefusesWhatIsNotOneObject(t *testing.T) {
	for _, raw := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1} x`, `{"a":1}{}`, `{"a":"}`, `{1:2}`} {
		if eachMember([]byte(raw), func(k, v []byte) bool { return true }) {
			t.Errorf("eachMember(%s) = true, want false", raw)
		}
	}
}

func TestAppendRequestIsMarshal(t *testing.T) {
	for _, method := range []string{"syscall.execute", "wire.handshake", "x<y>", "é", `a"b`} {
		for _, params := range []any{nil, map[string]any{"a": "<&>"}, json.RawMessage(` { "a" : 1 } `)} {
			raw, _ := json.Marshal(params)
			want, _ := json.Marshal(Request{JSONRPC: "2.0", ID: json.RawMessage("7"), Method: method, Params: raw})
			if got := appendRequest(nil, 7, method, raw); string(got) != string(want) {
				t.Errorf("appendRequest(7, %q, %s) = %s, want %s", method, raw, got, want)
			}
		}
	}
}

func TestAppendResultIsMarshal(t *testing.T) {
	result, _ := json.Marshal(syscallResult{Value: json.RawMessage(`{"a" : "<b>"}`)})
	for _, id := range []string{`1`, `-2.5e3`, `"a"`, `"a b"`, `"<x>"`, `"\u2028"`, "\"\u2028\"", `"\"q\""`} {
		resp := Response{JSONRPC: "2.0", ID: json.RawMessage(id), Result: result}
		want, _ := json.Marshal(resp)
		got, ok := appendResult(nil, resp)
		if !ok {
			got, _ = json.Marshal(resp)
		}
		if string(got) != string(want) {
			t.Errorf("appendResult(id %s) = %s, want %s", id, got, want)
		}
	}
	if _, ok := appendResult(nil, Response{JSONRPC: "2.0", ID: json.RawMessage(`1`), Error: rpcErr(CodeInternalError, "internal", "x")}); ok {
		t.Error("appendResult(an error response) = ok, want false (json.Marshal writes errors)")
	}
}

// decodeRequestModel is DecodeRequest's model: the strict check (its kind: not JSON is "parse",
// the others say what), then json.Valid, the shape and json.Unmarshal.
func decodeRequestModel(body []byte) (Request, string) {
	t := bytes.TrimSpace(body)
	var se *jsonstrict.Error
	if err := jsonstrict.Check(t, jsonstrict.Options{ExactDoublesIn: "params"}); errors.As(err, &se) {
		switch se.Kind {
		case jsonstrict.Syntax:
			return Request{}, "parse"
		case jsonstrict.TooDeep:
			return Request{}, "depth"
		}
		return Request{}, "strict: " + string(se.Kind)
	}
	if !json.Valid(t) {
		return Request{}, "parse"
	}
	if len(t) > 0 && t[0] == '[' {
		return Request{}, "batch"
	}
	if len(t) == 0 || t[0] != '{' {
		return Request{}, "request: object"
	}
	var req Request
	if err := json.Unmarshal(t, &req); err != nil {
		return Request{}, "request: " + err.Error()
	}
	return req, ""
}

var requestCorpus = []string{
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`, `{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}`, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\xff\"}",
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":1e400}}`, `{"jsonrpc":"2.0","id":1e400,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m"`, `{"jsonrpc":"2.0"} x`, `[{"jsonrpc":"2.0"}]`, `[`, `"x"`, `1`,
	``, `   `, `{}`, ` {"id":"a"} `, `{"jsonrpc":2}`, `nul`,
}

func TestDecodeRequestIsTheModel(t *testing.T) {
	for _, body := range requestCorpus {
		sameRequest(t, body)
	}
}

func sameRequest(t *testing.T, body string) {
	t.Helper()
	got, e := DecodeRequest([]byte(body))
	want, werr := decodeRequestModel([]byte(body))
	if werr != "" {
		if e == nil {
			t.Errorf("DecodeRequest(%q) = ok, want the error of %s", body, werr)
		}
		kind := map[string]string{"parse": "parse", "batch": "batch", "depth": "depth"}[werr]
		if k, ok := strings.CutPrefix(werr, "strict: "); ok {
			kind = k
		}
		if kind == "" {
			kind = "request"
		}
		var d struct{ Kind string }
		_ = json.Unmarshal(e.Data, &d)
		if d.Kind != kind {
			t.Errorf("DecodeRequest(%q) = kind %q, want %q (%s)", body, d.Kind, kind, werr)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DecodeRequest(%q) = %+v, want %+v", body, got, want)
	}
}

func FuzzDecodeRequestIsTheModel(f *testing.F) {
	for _, body := range requestCorpus {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) { sameRequest(t, body) })
}

var responseCorpus = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"value":1}}`, `{"jsonrpc":"2.0","id":"a","result":null}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"m"}}`, `{"jsonrpc":"2.0","ID":1,"result":1}`,
	`{"jsonrpc":2,"id":1,"result":1}`, `{"jsonrpc":null,"id":1}`, `{"result":1,"result":2}`, `{}`, `[]`, `{"a":`, `nul`,
}

func sameResponse(t *testing.T, body string) {
	t.Helper()
	var got, want Response
	gerr, werr := unmarshalResponse([]byte(body), &got), json.Unmarshal([]byte(body), &want)
	if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
		t.Errorf("unmarshalResponse(%s) = %+v, %v, want %+v, %v", body, got, gerr, want, werr)
	}
}

func TestUnmarshalResponseIsUnmarshal(t *testing.T) {
	for _, body := range responseCorpus {
		sameResponse(t, body)
	}
}

func FuzzUnmarshalResponse(f *testing.F) {
	for _, body := range responseCorpus {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) { sameResponse(t, body) })
}
