package vectors

import (
	"context"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// choiceVector is a fold vector citing a spec clause and two choices, each with its paths.
func choiceVector(t *testing.T, choicePaths string) string {
	t.Helper()
	return `{"id":"a","kind":"fold","reason":"r","clauses":["S4.v1_23.message-consumed","I-FOLD-8","I-FOLD-7"],` + choicePaths + `"profile":"1.26.0","events":[],` +
		`"expect":{"state":{"status":"running","frames":{},"sequence":3,"startedAt":1,"updatedAt":3,"variables":{"_inbox":{"t":{"count":1,"last":"m"}},"_waitAnswers":{"w~/":1,"w2":null}}}}}`
}

// Reference: I-VECTOR-20 — choicePaths are data the loader checks: each names a choice
// the vector cites and members its expected state has; a state vector citing a choice beside a
// required clause names paths for every choice it cites; no other vector has them.
func TestLoadChecksChoicePaths(t *testing.T) {
	good := `"choicePaths":{"I-FOLD-8":["/variables/_inbox"],"I-FOLD-7":["/variables/_waitAnswers/w~0~1"]},`
	if _, err := Parse([]byte(choiceVector(t, good)), "ok.json"); err != nil {
		t.Fatalf("Parse(choicePaths of both choices) = %v, want nil", err)
	}
	cases := []struct{ name, file, want string }{
		{"missing", choiceVector(t, ""), "choicePaths: the vector cites the choice I-FOLD-8 beside a required clause"},
		{"one choice without paths", choiceVector(t, `"choicePaths":{"I-FOLD-8":["/variables/_inbox"]},`), "cites the choice I-FOLD-7"},
		{"unknown clause", choiceVector(t, `"choicePaths":{"I-FOLD-8":["/variables/_inbox"],"I-FOLD-7":["/variables"],"I-NOPE-1":["/status"]},`), `choicePaths: unknown clause "I-NOPE-1"`},
		{"not cited", choiceVector(t, `"choicePaths":{"I-FOLD-8":["/variables/_inbox"],"I-FOLD-7":["/variables"],"I-FOLD-9":["/status"]},`), "I-FOLD-9 is not among the vector's clauses"},
		{"not a choice", choiceVector(t, `"choicePaths":{"I-FOLD-8":["/variables/_inbox"],"I-FOLD-7":["/variables"],"S4.v1_23.message-consumed":["/status"]},`), "S4.v1_23.message-consumed is not a choice"},
		{"absent member", choiceVector(t, `"choicePaths":{"I-FOLD-8":["/variables/_inbox"],"I-FOLD-7":["/variables/_waits"]},`), `"/variables/_waits" names nothing expect.state has`},
		{"past a scalar", choiceVector(t, `"choicePaths":{"I-FOLD-8":["/variables/_inbox/t/count/0"],"I-FOLD-7":["/variables"]},`), "names nothing expect.state has"},
		{"not a pointer", choiceVector(t, `"choicePaths":{"I-FOLD-8":["variables"],"I-FOLD-7":["/variables"]},`), "want a JSON Pointer starting with /"},
		{"bad escape", choiceVector(t, `"choicePaths":{"I-FOLD-8":["/variables/~2"],"I-FOLD-7":["/variables"]},`), "~ must be followed by 0 or 1"},
		{"twice", choiceVector(t, `"choicePaths":{"I-FOLD-8":["/status","/status"],"I-FOLD-7":["/variables"]},`), `names "/status" twice`},
		{"on an error vector", `{"id":"a","kind":"fold","reason":"r","clauses":["S4.fold.unknown-inert","I-FOLD-1"],"choicePaths":{"I-FOLD-1":["/status"]},"profile":"1.26.0","events":[],"expect":{"error":"sequence"}}`, "only a fold vector that expects a state"},
		{"choices only", `{"id":"a","kind":"fold","reason":"r","clauses":["I-FOLD-28"],"choicePaths":{"I-FOLD-28":["/status"]},"profile":"1.26.0","events":[],` +
			`"expect":{"state":{"status":"pending","frames":{},"variables":{},"sequence":-1,"startedAt":null,"updatedAt":null}}}`, "cites only choices"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.file), "dir/bad.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "dir/bad.json: ") {
			t.Errorf("vectors/choice-paths-checked [I-VECTOR-20]: %s: Parse = %v, want an error naming dir/bad.json and containing %q", c.name, err, c.want)
		}
	}
}

// span finds a value by JSON Pointer in any JSON text (whitespace, escaped keys, arrays, the last
// of repeated keys) and says when the text does not have it.
func TestSpanFindsPointers(t *testing.T) {
	text := []byte(` { "a" : [ 1 , {"b":"x\"}"} ] , "k~/\u0041" : null , "d":1, "d" : [2] } `)
	cases := []struct{ pointer, want string }{
		{"/a", `[ 1 , {"b":"x\"}"} ]`},
		{"/a/0", "1"},
		{"/a/1/b", `"x\"}"`},
		{"/k~0~1A", "null"},
		{"/d", "[2]"},
		{"/d/0", "2"},
		{"/a/2", ""},
		{"/a/01", ""},
		{"/e", ""},
		{"/a/1/b/c", ""},
	}
	for _, c := range cases {
		got, ok := valuesAt(text, []string{c.pointer})[c.pointer]
		if got != c.want || ok != (c.want != "") {
			t.Errorf("valueAt(%s) = %q, %v; want %q", c.pointer, got, ok, c.want)
		}
	}
	if got := string(masked([]byte(`{"a":{"b":1,"c":[1,2]},"d":2}`), []string{"/a/c", "/a", "/x"})); got != `{"a":null,"d":2}` {
		t.Errorf("masked(nested pointers) = %s, want the outer value masked once", got)
	}
}

// Reference: I-VECTOR-20, DESIGN §7.1 (a tier per assertion) — a state vector with choicePaths compares the
// state outside them citing its required clauses and each choice's paths citing that choice: a
// fold that differs only at a choice's paths misses a recommendation; one that differs elsewhere,
// or lacks a member a choice path names, fails a required assertion, listed first.
func TestChoicePathsBindPerAssertion(t *testing.T) {
	v, err := Parse([]byte(choiceVector(t, `"choicePaths":{"I-FOLD-8":["/variables/_inbox"],"I-FOLD-7":["/variables/_waitAnswers/w~0~1"]},`)), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := v.Want()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		got      string
		failed   []string // the failing assertions' clauses, in order
		required bool
	}{
		{"another cursor", strings.Replace(want, `{"t":{"count":1,"last":"m"}}`, `{"t":{"n":1}}`, 1), []string{"I-FOLD-8"}, false},
		{"another answer and cursor", strings.Replace(strings.Replace(want, `"w~/":1`, `"w~/":2`, 1), `"count":1`, `"count":2`, 1), []string{"I-FOLD-8", "I-FOLD-7"}, false},
		{"another status", strings.Replace(want, `"running"`, `"suspended"`, 1), []string{"S4.v1_23.message-consumed"}, true},
		{"no cursor", strings.Replace(want, `"_inbox":{"t":{"count":1,"last":"m"}},`, ``, 1), []string{"S4.v1_23.message-consumed", "I-FOLD-8"}, true},
		{"not canonical", strings.Replace(want, `"w2":null`, `"w2": null`, 1), []string{"S4.v1_23.message-consumed"}, true},
		{"not JSON", `{"frames":`, []string{"S4.v1_23.message-consumed", "I-FOLD-8", "I-FOLD-7"}, true},
	}
	for _, c := range cases {
		f := script{"a": func() (Response, error) { return Response{Output: &c.got}, nil }}
		rep := Run(context.Background(), Corpus{Vectors: []Vector{v}}, f, Config{})
		x := rep.Results[0]
		var got []string
		for _, a := range x.Failed {
			got = append(got, strings.Join(a.Clauses, " "))
		}
		if x.Verdict != Fail || strings.Join(got, ",") != strings.Join(c.failed, ",") || (x.Binds() == spec.Required) != c.required {
			t.Errorf("vectors/choice-paths-bind [I-VECTOR-20]: %s: Run = %s binding %s, failed assertions %q; want fail binding required=%v, failed %q\n%s",
				c.name, x.Verdict, x.Binds(), got, c.required, c.failed, x.Message)
		}
		if lines := strings.Split(x.Message, "\n"); !strings.HasPrefix(lines[0], "vector/a ["+c.failed[0]+"]: Fold(1.26.0, c.json) ") {
			t.Errorf("%s: first line %q, want the most binding assertion in the failure grammar", c.name, lines[0])
		}
	}
}
