package jsonstrict

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, c := range []struct {
		in   string
		opt  Options
		kind Kind // "" = accepted
		path string
	}{
		{in: `{"a":[1,2,{"b":"c"}],"d":null,"e":true,"f":-0.5e+3}`},
		{in: ` "x" `},
		{in: `{}`}, {in: `[]`}, {in: `[[],{}]`},
		{in: `{"a":1,"a":2}`, kind: Duplicate, path: "a"},
		{in: `{"p":{"events":[{"x":1},{"x":1,"x":2}]}}`, kind: Duplicate, path: "p.events[1].x"},
		{in: `{"a":1,"\u0061":2}`, kind: Duplicate},
		{in: `{"é":1,"\u00e9":2}`, kind: Duplicate},
		{in: `{"\ud83e\uddf5":1,"🧵":2}`, kind: Duplicate},
		{in: `{"\ud800":1,"\udc00":2}`},
		{in: `{"\ud800":1,"\ud800":2}`, kind: Duplicate},
		{in: `[{"a":1},{"a":1}]`}, // the same key in two objects is no duplicate
		{in: "{\"id\":\"victim-\xff\"}", kind: BadUTF8, path: "id"},
		{in: "{\"id\":\"victim-\x80\"}", kind: BadUTF8, path: "id"},
		{in: "{\"a\":{\"k\xfe\":1}}", kind: BadUTF8, path: "a"},
		{in: "\"\xed\xa0\x80\"", kind: BadUTF8}, // a surrogate encoded in UTF-8 is not UTF-8
		{in: `{"a b":{"c":[0,"\u0000",nul]}}`, kind: Syntax, path: `["a b"].c[2]`},
		{in: `{"a":1,}`, kind: Syntax}, {in: `[1,]`, kind: Syntax}, {in: `01`, kind: Syntax},
		{in: `{"a":1} x`, kind: Syntax}, {in: "\"a\tb\"", kind: Syntax}, {in: `"\x"`, kind: Syntax},
		{in: "\ufeff{}", kind: Syntax}, {in: ``, kind: Syntax}, {in: `{"a"}`, kind: Syntax},
		{in: deep(10000)},
		{in: deep(10001), kind: TooDeep},
		{in: deep(4), opt: Options{MaxDepth: 3}, kind: TooDeep, path: "[0][0][0]"},
		{in: `{"id":12345678901234567890,"params":{"n":1}}`, opt: Options{ExactDoublesIn: "params"}},
		{in: `{"params":{"input":{"n":[1e400]}}}`, opt: Options{ExactDoublesIn: "params"}, kind: Inexact, path: "params.input.n[0]"},
		{in: `{"params":{"v":12345678901234567890}}`, opt: Options{ExactDoublesIn: "params"}, kind: Inexact, path: "params.v"},
		{in: `{"params":{"v":9007199254740993}}`, opt: Options{ExactDoublesIn: "params"}, kind: Inexact},
		{in: `{"params":{"v":1e-400}}`, opt: Options{ExactDoublesIn: "params"}, kind: Inexact},
		{in: `{"params":{"v":-1e999999999999999999999}}`, opt: Options{ExactDoublesIn: "params"}, kind: Inexact},
		{in: `{"params":[9007199254740992,9007199254740994,0.1,1.50,-0,1e21,1.7976931348623157e308,5e-324,0.30000000000000004,123456789012345e-3]}`, opt: Options{ExactDoublesIn: "params"}},
		{in: `{"params":0.1000000000000000055511151231257827}`, opt: Options{ExactDoublesIn: "params"}, kind: Inexact, path: "params"},
		{in: `{"other":1e400}`, opt: Options{ExactDoublesIn: "params"}},
	} {
		err := Check([]byte(c.in), c.opt)
		var e *Error
		switch {
		case c.kind == "" && err != nil:
			t.Errorf("Check(%.60q) = %v, want nil", c.in, err)
		case c.kind != "" && !errors.As(err, &e):
			t.Errorf("Check(%.60q) = %v, want a %s error", c.in, err, c.kind)
		case c.kind != "" && (e.Kind != c.kind || (c.path != "" && e.Path != c.path)):
			t.Errorf("Check(%.60q) = %s error at %q (%v), want %s at %q", c.in, e.Kind, e.Path, err, c.kind, c.path)
		}
	}
}

// Reference: I-NET-5 — past depth 10 000 the refusal says more than "not JSON": it names
// the limit.
func TestDepthRefusalNamesTheLimit(t *testing.T) {
	err := Check([]byte(strings.Repeat(`{"a":`, 10001)+"1"+strings.Repeat("}", 10001)), Options{})
	var e *Error
	if !errors.As(err, &e) || e.Kind != TooDeep || e.Limit != DefaultMaxDepth || !strings.Contains(err.Error(), "10000") {
		t.Fatalf("Check(10001 levels) = %v, want a depth error naming the limit 10000", err)
	}
}

func TestInexactSaysWhatItWouldBe(t *testing.T) {
	err := Check([]byte(`{"params":12345678901234567890}`), Options{ExactDoublesIn: "params"})
	if err == nil || !strings.Contains(err.Error(), "12345678901234567000") {
		t.Fatalf("Check = %v, want the value it would read back as (12345678901234567000)", err)
	}
}

// hasDuplicate is the model of duplicate detection: encoding/json's token stream, keys compared
// after unescaping.
func hasDuplicate(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type obj struct {
		keys   map[string]bool
		expect bool // the next string token is a key
	}
	var stack []*obj
	for {
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			return false
		}
		var top *obj
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &obj{keys: map[string]bool{}, expect: true})
				continue
			case '[':
				stack = append(stack, nil)
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if top != nil && top.expect {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
				top.expect = false
				continue
			}
		}
		if len(stack) > 0 && stack[len(stack)-1] != nil {
			stack[len(stack)-1].expect = true
		}
	}
}

// FuzzCheck: the check agrees with encoding/json on what is JSON (within the depth limit), accepts
// only valid UTF-8 and never a duplicate key, and never panics.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"a":2}`, "{\"a\":\"\xff\"}", `[1,[2,[3]]]`, `{"a":"\u00e9","\u00e9":1}`, `"\ud800"`, `-0.0e-0`, `{"params":{"x":1e400}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Check(b, Options{MaxDepth: 64})
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("Check(%q) = %v, not an *Error", b, err)
		}
		if err == nil {
			if !json.Valid(b) {
				t.Fatalf("Check(%q) accepted text encoding/json refuses", b)
			}
			if !utf8.Valid(b) {
				t.Fatalf("Check(%q) accepted invalid UTF-8", b)
			}
			if !bytes.Contains(b, []byte(`\u`)) && hasDuplicate(b) {
				t.Fatalf("Check(%q) accepted a duplicate key", b)
			}
			return
		}
		if e.Kind == Syntax && json.Valid(b) {
			t.Fatalf("Check(%q) = %v, but encoding/json reads it", b, err)
		}
		if e.Kind == BadUTF8 && utf8.Valid(b) {
			t.Fatalf("Check(%q) = %v, but the text is valid UTF-8", b, err)
		}
		if e.Offset < 0 || e.Offset > len(b) {
			t.Fatalf("Check(%q) = offset %d, outside the text", b, e.Offset)
		}
	})
}

// NamesWhole refuses a lone surrogate in a name and leaves it alone below an opaque member
// (I-STORE-81).
func TestNamesWhole(t *testing.T) {
	o := Options{NamesWhole: true, Opaque: []string{"payload"}}
	for _, tc := range []struct {
		in   string
		kind Kind
	}{
		{`{"id":"a\ud800"}`, Surrogate},
		{`{"id":"a\udc00b"}`, Surrogate},
		{`{"id":"a\ud800\u0041"}`, Surrogate},
		{`{"\ud800":"x"}`, Surrogate},
		{`{"id":"a\ud83e\uddf5"}`, ""},
		{`{"payload":{"s":"\ud800","\udc00":["\ud800"]}}`, ""},
		{`{"events":[{"payload":"\ud800","executionId":"x"}]}`, ""},
		{`{"events":[{"payload":"x","executionId":"\ud800"}]}`, Surrogate},
	} {
		err := Check([]byte(tc.in), o)
		var e *Error
		switch {
		case tc.kind == "" && err != nil:
			t.Errorf("Check(%s) = %v, want nil", tc.in, err)
		case tc.kind != "" && (!errors.As(err, &e) || e.Kind != tc.kind):
			t.Errorf("Check(%s) = %v, want a %s error", tc.in, err, tc.kind)
		}
	}
	if err := Check([]byte(`{"id":"a\ud800"}`), Options{}); err != nil {
		t.Errorf("without NamesWhole a lone surrogate is JSON: %v", err)
	}
}
