package vectors

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/loom-kernel/loom-conform/spec"
)

func TestCorpusLoads(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatalf("vectors/corpus-loads [A26.vectors.language-agnostic]: Embedded() = %v, want nil", err)
	}
	if len(c.Vectors) == 0 {
		t.Fatal("vectors/corpus-loads [A26.vectors.language-agnostic]: Embedded() = 0 vectors, want some")
	}
	if err := spec.Validate(Checks()); err != nil {
		t.Fatal(err)
	}
}

const goodCanonical = `{"id":"x/a","kind":"canonical","reason":"r","clauses":["S3.emit.canonical-form"],"input":"1","expect":{"canonical":"1"}}`

func TestLoadRefusesDuplicateIDs(t *testing.T) {
	fsys := fstest.MapFS{
		"v/one.json":     {Data: []byte(goodCanonical)},
		"v/sub/two.json": {Data: []byte(goodCanonical)},
	}
	_, err := LoadFS(fsys, "v", "corpus")
	if err == nil {
		t.Fatal("LoadFS(two files with id x/a) = nil error, want a duplicate-id error")
	}
	for _, want := range []string{"corpus/v/one.json", "corpus/v/sub/two.json", `duplicate vector id "x/a"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("LoadFS duplicate error = %q, want it to contain %q", err, want)
		}
	}
}

func TestLoadRefusesMalformed(t *testing.T) {
	env := `{"id":"e","workflowId":"w","executionId":"x","eventType":"EXECUTION_STARTED","sequence":0,"timestamp":1,"payload":{}}`
	cases := []struct{ name, file, want string }{
		{"unknown member", `{"id":"a","kind":"canonical","reason":"r","clauses":["S3.emit.canonical-form"],"input":"1","expect":{"canonical":"1"},"extra":1}`, `unknown field "extra"`},
		{"no id", `{"kind":"canonical","reason":"r","clauses":["S3.emit.canonical-form"],"input":"1","expect":{"canonical":"1"}}`, "id: missing"},
		{"bad id", `{"id":"A B","kind":"canonical","reason":"r","clauses":["S3.emit.canonical-form"],"input":"1","expect":{"canonical":"1"}}`, `id "A B"`},
		{"no reason", `{"id":"a","kind":"canonical","clauses":["S3.emit.canonical-form"],"input":"1","expect":{"canonical":"1"}}`, "reason: missing"},
		{"two-line reason", `{"id":"a","kind":"canonical","reason":"r\nq","clauses":["S3.emit.canonical-form"],"input":"1","expect":{"canonical":"1"}}`, "one line"},
		{"unknown clause", `{"id":"a","kind":"canonical","reason":"r","clauses":["S9.nope"],"input":"1","expect":{"canonical":"1"}}`, `unknown clause "S9.nope"`},
		{"no clauses", `{"id":"a","kind":"canonical","reason":"r","input":"1","expect":{"canonical":"1"}}`, "clauses: missing"},
		{"bad kind", `{"id":"a","kind":"flod","reason":"r","clauses":["S3.emit.canonical-form"],"expect":{"error":"x"}}`, `kind "flod"`},
		{"two expectations", `{"id":"a","kind":"canonical","reason":"r","clauses":["S3.emit.canonical-form"],"input":"1","expect":{"canonical":"1","error":"invalid-json"}}`, "exactly one"},
		{"bad error kind", `{"id":"a","kind":"canonical","reason":"r","clauses":["S3.emit.canonical-form"],"input":"1","expect":{"error":"boom"}}`, `expect.error "boom"`},
		{"fold bad profile", `{"id":"a","kind":"fold","reason":"r","clauses":["S4.fold.unknown-inert"],"profile":"1.9.0","events":[],"expect":{"error":"sequence"}}`, "profile"},
		{"fold no events", `{"id":"a","kind":"fold","reason":"r","clauses":["S4.fold.unknown-inert"],"profile":"1.26.0","expect":{"error":"sequence"}}`, "events: missing"},
		{"envelope typo", `{"id":"a","kind":"fold","reason":"r","clauses":["S4.fold.unknown-inert"],"profile":"1.26.0","events":[` + strings.Replace(env, `"eventType"`, `"eventtype"`, 1) + `],"expect":{"error":"sequence"}}`, "events[0]"},
		{"envelope missing sequence", `{"id":"a","kind":"fold","reason":"r","clauses":["S4.fold.unknown-inert"],"profile":"1.26.0","events":[` + strings.Replace(env, `"sequence":0,`, ``, 1) + `],"expect":{"state":{}}}`, "events[0]: sequence: missing"},
		{"envelope wrong type", `{"id":"a","kind":"fold","reason":"r","clauses":["S4.fold.unknown-inert"],"profile":"1.26.0","events":[` + strings.Replace(env, `"timestamp":1`, `"timestamp":"1"`, 1) + `],"expect":{"state":{}}}`, "events[0]: timestamp: want an integer"},
		{"digest bad", `{"id":"a","kind":"digest","reason":"r","clauses":["S3.emit.identity"],"segment":-1,"eventType":"t","payload":1,"expect":{"digest":"XYZ"}}`, "segment"},
		{"two values", goodCanonical + goodCanonical, "more than one JSON value"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.file), "dir/bad.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "dir/bad.json: ") {
			t.Errorf("%s: Parse = %v, want an error naming dir/bad.json and containing %q", c.name, err, c.want)
		}
	}
	if _, err := Parse([]byte(goodCanonical), "ok.json"); err != nil {
		t.Errorf("Parse(good) = %v, want nil", err)
	}
}

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  string
	}{
		{`fold`, []string{"fold"}, ""},
		{`  node  my\ fold.js  --x=1 `, []string{"node", "my fold.js", "--x=1"}, ""},
		{`python3 -c 'print("a b")'`, []string{"python3", "-c", `print("a b")`}, ""},
		{`run "a \"quoted\" \\ word" x''y ""`, []string{"run", `a "quoted" \ word`, "xy", ""}, ""},
		{`a "b'c" 'd"e'`, []string{"a", "b'c", `d"e`}, ""},
		{`a 'open`, nil, "unterminated single quote"},
		{`a "open`, nil, "unterminated double quote"},
		{`a \`, nil, "trailing backslash"},
		{`   `, nil, "empty"},
	}
	for _, c := range cases {
		got, err := SplitArgs(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("SplitArgs(%q) = %q, %v; want error containing %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(got, "\x00") != strings.Join(c.want, "\x00") || len(got) != len(c.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestLedgerParse(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"expectedFailures":[{"check":"a","reason":"known"},{"check":"a","reason":"again"}]}`, "listed twice"},
		{`{"expectedFailures":[{"check":"a"}]}`, "reason is empty"},
		{`{"id":"a"}`, `want {"expectedFailures"`},
		// The shape vectors once read: refused, naming the one shape.
		{`[{"id":"a","reason":"known"}]`, `want {"expectedFailures": [{"check"`},
		{`{"expectedFailures":[{"check":"a","reason":"r","expires":"soon"}]}`, "YYYY-MM-DD"},
	}
	for _, c := range cases {
		if _, err := ParseLedger("l.json", []byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "l.json") {
			t.Errorf("ParseLedger(%s) = %v, want an error naming l.json and saying %q", c.in, err, c.want)
		}
	}
	if l, err := ParseLedger("l.json", []byte(`{"expectedFailures":[{"check":"a","reason":"known","expires":"2027-01-31"}]}`)); err != nil || len(l.Entries) != 1 {
		t.Errorf("ParseLedger(valid) = %v, %v", l, err)
	}
}
