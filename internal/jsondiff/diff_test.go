package jsondiff

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

type envelope struct {
	ID       string          `json:"id"`
	Sequence int64           `json:"sequence"`
	Payload  json.RawMessage `json:"payload"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

func TestDiffShowsJSONNeverGoTypes(t *testing.T) {
	w := []envelope{{"e0", 0, json.RawMessage(`{"n":0}`), nil}, {"e1", 1, json.RawMessage(`{"attempt":1}`), nil}}
	g := []envelope{{"e0", 0, json.RawMessage(`{"n":0}`), nil}, {"e1", 1, json.RawMessage(`{"attempt":"1"}`), json.RawMessage(`{"kernel":true}`)}}
	d := Diff(w, g)
	for _, goNotation := range []string{"envelope{", "json.RawMessage", "identical fields", `s"1"`, "[]jsondiff", "map["} {
		if strings.Contains(d, goNotation) {
			t.Errorf("Diff shows Go notation %q:\n%s", goNotation, d)
		}
	}
	want := `differs at /1/metadata, /1/payload/attempt
  [
    {"id":"e0","payload":{"n":0},"sequence":0},
    {
      "id": "e1",
-     (no "metadata")
+     "metadata": {"kernel":true},
      "payload": {
-       "attempt": 1
+       "attempt": "1"
      },
      "sequence": 1
    }
  ]
`
	if d != want {
		t.Errorf("Diff =\n%s\nwant\n%s", d, want)
	}
}

func TestDiffEqualIsEmpty(t *testing.T) {
	a := map[string]any{"b": []any{1, "x", nil}, "a": true}
	b := map[string]any{"a": true, "b": []any{1, "x", nil}}
	if d := Diff(a, b); d != "" {
		t.Errorf("Diff(equal values) = %q, want \"\"", d)
	}
	if d := Diff(json.RawMessage(`{"a": 1,"b":[2]}`), map[string]any{"b": []int{2}, "a": 1}); d != "" {
		t.Errorf("Diff(the same JSON as text and as a Go value) = %q, want \"\"", d)
	}
}

func TestDiffPointers(t *testing.T) {
	for _, tc := range []struct {
		want, got any
		first     string
	}{
		{map[string]any{"a/b": 1, "c~d": 2}, map[string]any{"a/b": 2, "c~d": 2}, "/a~1b"},
		{map[string]any{"c~d": 1}, map[string]any{"c~d": 2}, "/c~0d"},
		{[]int{1, 2, 3}, []int{1, 3}, "/1"},
		{[]int{1, 3}, []int{1, 2, 3}, "/1"},
		{1, "1", ""},
	} {
		p, ok := First(tc.want, tc.got)
		if !ok || p != tc.first {
			t.Errorf("First(%v, %v) = %q, %v, want %q", tc.want, tc.got, p, ok, tc.first)
		}
		if !strings.HasPrefix(Diff(tc.want, tc.got), "differs at "+Pointer(tc.first)) {
			t.Errorf("Diff(%v, %v) does not start with its first pointer %q:\n%s", tc.want, tc.got, tc.first, Diff(tc.want, tc.got))
		}
	}
	if _, ok := First([]int{1}, []int{1}); ok {
		t.Error("First(equal) reports a difference")
	}
}

func TestDiffAlignsAnInsertedElement(t *testing.T) {
	w := []string{"a", "b", "c", "d", "e", "f", "g"}
	g := []string{"a", "b", "c", "X", "d", "e", "f", "g"}
	d := Diff(w, g)
	if strings.Count(d, "\n-") != 0 || strings.Count(d, "\n+") != 1 || !strings.Contains(d, `+   "X"`) {
		t.Errorf("Diff(one element inserted) shows more than the one added element:\n%s", d)
	}
	if !strings.Contains(d, "… 2 equal elements") {
		t.Errorf("Diff does not count the equal elements far from the difference:\n%s", d)
	}
}

func TestCompactElidesBetweenCharacters(t *testing.T) {
	v := map[string]any{"k": strings.Repeat("日本\"\\\n", 50), "z": 1}
	for max := 5; max < 60; max++ {
		s := Compact(v, max)
		if !utf8.ValidString(s) || !strings.Contains(s, "…") {
			t.Fatalf("Compact(v, %d) = %q: want valid UTF-8 elided with …", max, s)
		}
		// Cut between characters and closed: without the marks, what is shown is JSON.
		if unmarked := strings.ReplaceAll(strings.ReplaceAll(s, ",…", ""), "…", ""); !json.Valid([]byte(unmarked)) {
			t.Errorf("Compact(v, %d) = %q cuts inside a character or an escape", max, s)
		}
		if n := utf8.RuneCountInString(s); n > max+4 {
			t.Errorf("Compact(v, %d) = %q is %d characters", max, s, n)
		}
	}
	if s := Compact(map[string]any{"b": 1, "a": "<&>"}, 0); s != `{"a":"<&>","b":1}` {
		t.Errorf("Compact = %s, want keys sorted and no HTML escapes", s)
	}
}

func TestLongStringsShowTheirFirstDifference(t *testing.T) {
	base := strings.Repeat("é", 2000)
	d := Diff(base+"x", base+"y")
	if !strings.Contains(d, "the first difference at 2000") || !strings.Contains(d, `x"`) || !strings.Contains(d, `y"`) || utf8.RuneCountInString(d) > 1200 {
		t.Errorf("Diff(long strings) does not show a window at the difference:\n%s", d)
	}
}

func TestNotJSONIsShownAsText(t *testing.T) {
	d := Diff(envelope{Payload: json.RawMessage(`{}`)}, envelope{Payload: json.RawMessage(`{bad`)})
	if !strings.Contains(d, `(not JSON) "{bad"`) {
		t.Errorf("Diff(payload that is not JSON) =\n%s\nwant it shown as text marked not JSON", d)
	}
}

func TestDiffIsBounded(t *testing.T) {
	var w, g []int
	for i := range 5000 {
		w = append(w, i)
		g = append(g, i+1)
	}
	d := Diff(w, g)
	if n := strings.Count(d, "\n"); n > maxLines+2 || !strings.Contains(d, "more lines") || !strings.Contains(d, "(and ") {
		t.Errorf("Diff(5000 differences) has %d lines, want at most %d and a count of the rest", n, maxLines+2)
	}
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	if Diff(json.RawMessage(deep), json.RawMessage("[]")) == "" {
		t.Error("Diff(deeply nested) = \"\"")
	}
}
