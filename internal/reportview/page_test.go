package reportview_test

import (
	"bytes"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/doclinks"
	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/spec"
)

// Failures come first, worst first: blocking failures, then unknowns, then failures that do not
// block, then those the ledger excuses; passes and skips are not listed.
func TestAttentionOrder(t *testing.T) {
	p := reportview.Page{Items: []reportview.Item{
		{ID: "excused", Verdict: "fail", Expected: "known"},
		{ID: "pass", Verdict: "pass"},
		{ID: "recommended", Verdict: "fail"},
		{ID: "unknown", Verdict: "unknown"},
		{ID: "skip", Verdict: "skip"},
		{ID: "blocking", Verdict: "fail", Blocking: true},
	}}
	var got []string
	for _, it := range p.Attention() {
		got = append(got, it.ID)
	}
	if want := "blocking unknown recommended excused"; strings.Join(got, " ") != want {
		t.Errorf("Attention = %v, want %s", got, want)
	}
}

// Failures that share a line of their diff are one cause; generated ids and numbers do not split
// it, and a failure with a different difference stays on its own.
func TestCausesGroupOneDifference(t *testing.T) {
	diff := func(exec, seq string) string {
		return "x [I-STORE-3]: Read(\"kit-" + exec + "\") = other content, want same\n(-want +got):\n  {\n    Sequence: " + seq + ",\n-   Metadata: json.RawMessage(`{\"k\":1}`),\n+   Metadata: nil,\n  }"
	}
	items := []reportview.Item{
		{ID: "a", Message: diff("1baba", "1")}, {ID: "b", Message: diff("2cafe", "7")},
		{ID: "c", Message: "c [I-STORE-1]: Append(x) = bridge error -32603, want nil"}, {ID: "d", Message: diff("3d00d", "12")},
	}
	causes, rest := reportview.Causes(items)
	if len(causes) != 1 || len(causes[0].Items) != 3 || !strings.Contains(causes[0].Evidence, "Metadata: nil") || len(rest) != 1 || rest[0].ID != "c" {
		t.Fatalf("Causes = %+v, rest %+v; want one cause (Metadata: nil) of a, b, d and c alone", causes, rest)
	}
	if c, _ := reportview.Causes(items[:2]); len(c) != 0 {
		t.Errorf("two items are grouped (%+v), want at least %d to share a cause", c, reportview.MinCause)
	}
}

// Every interpretation's link lands on its heading in the generated docs/interpretations.md.
func TestInterpretationAnchorsResolve(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "interpretations.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := doclinks.Anchors(string(data))
	n := 0
	for _, c := range spec.Clauses() {
		if c.Source != spec.SourceInterpretation {
			continue
		}
		n++
		if a := reportview.InterpretationAnchor(c); !anchors[a] {
			t.Errorf("%s: anchor %q is not a heading of docs/interpretations.md (regenerate it: make docs)", c.ID, a)
		}
	}
	if n == 0 {
		t.Fatal("no interpretation clause")
	}
}

// The page escapes what a target said, marks the diff, and links every clause to the coverage.
func TestWriteHTML(t *testing.T) {
	p := reportview.Page{Title: "t", Verdict: "fail", Tone: reportview.Bad, Headline: "FAIL", Items: []reportview.Item{
		{ID: "k/x", Group: "k", Verdict: "fail", Blocking: true, Clauses: []string{"I-STORE-3", "S9.nope"},
			Message: "k/x [I-STORE-3]: Op() = <script>alert(1)</script>, want y\n(-want +got):\n- a\n+ b", Repro: "loom-conform certify --run '^k/x$'",
			WitnessDrawing: "<html><body>drawing</body></html>"},
		{ID: "k/y", Group: "k", Verdict: "pass", Clauses: []string{"I-STORE-3"}},
	}}
	var b bytes.Buffer
	if err := reportview.WriteHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, want := range []string{`&lt;script&gt;alert(1)`, `<span class="del">- a</span>`, `<span class="add">&#43; b</span>`,
		`href="#clause-I-STORE-3"`, `id="clause-I-STORE-3"`, `id="clause-S9.nope"`, "not in this harness", `srcdoc="&lt;html&gt;`,
		`interpretations.md#i-store-3--`, `id="check-k/x"`, `id="row-k/y"`} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(h, "<script>alert") {
		t.Error("page does not escape the target's text")
	}
}

// A choice's "why" lists the legal options the spec leaves, ours first and marked, so a reader of
// a recommendation not met sees what else would have kept the spec (spec.Clause.Options).
func TestCoverageShowsLegalOptions(t *testing.T) {
	c, ok := spec.Lookup("I-FOLD-7")
	if !ok || len(c.Options) < 2 {
		t.Fatalf("I-FOLD-7 = %+v, want a choice with options", c)
	}
	p := reportview.Page{Title: "t", Verdict: "pass", Items: []reportview.Item{
		{ID: "vector/fold/v1_23/suspended-waits", Group: "fold", Verdict: "fail", Clauses: []string{"S4.v1_23.suspended-waits", "I-FOLD-7"}},
	}}
	var b bytes.Buffer
	if err := reportview.WriteHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	want := `<ol class="options"><li>` + template.HTMLEscapeString(c.Options[0]) + ` <em>(ours)</em></li><li>` + template.HTMLEscapeString(c.Options[1]) + `</li>`
	if !strings.Contains(h, want) {
		t.Errorf("reportview/coverage [I-CERT-10]: WriteHTML(I-FOLD-7) lacks its options %q", want)
	}
	if n := strings.Count(h, `<ol class="options">`); n != 1 {
		t.Errorf("reportview/coverage: %d option lists, want 1 (a spec clause has none)", n)
	}
}

// The matrix keeps one column per report and orders clauses with their numbers as numbers.
func TestBuildMatrix(t *testing.T) {
	page := func(name, verdict string, items ...reportview.Item) reportview.Page {
		return reportview.Page{Kind: "certify", Name: name, Verdict: verdict, Items: items}
	}
	a := page("a", "certified", reportview.Item{ID: "x/ten", Verdict: "pass", Clauses: []string{"I-BRIDGE-10"}},
		reportview.Item{ID: "x/two", Verdict: "pass", Clauses: []string{"I-BRIDGE-2"}})
	b := page("a", "not-certified", reportview.Item{ID: "x/two", Verdict: "fail", Message: "boom", Clauses: []string{"I-BRIDGE-2"}})
	m, err := reportview.BuildMatrix([]reportview.Page{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Columns) != 2 || m.Columns[1].Name != "a (2)" || m.Groups[0].Clause != "I-BRIDGE-2" || m.Groups[1].Clause != "I-BRIDGE-10" {
		t.Fatalf("BuildMatrix = %+v", m)
	}
	two, ten := m.Groups[0].Rows[0], m.Groups[1].Rows[0]
	if two.Cells[1].Verdict != "fail" || two.Cells[1].Message != "boom" || !two.Differs() || ten.Cells[1].Verdict != "" || !ten.NotAllPass() {
		t.Errorf("rows = %+v, %+v", two, ten)
	}
	if _, err := reportview.BuildMatrix([]reportview.Page{a, {Kind: "vectors"}}); err == nil {
		t.Error("BuildMatrix(certify, vectors) = nil error, want a refusal")
	}
}

// A failed cell of the matrix page carries what its reader needs to act: the diff, the command
// that reproduces it and the failure's place in that implementation's report; the checks every
// implementation passed are hidden at first (with scripts), a filter shows them.
func TestMatrixHTMLFailedCell(t *testing.T) {
	ok := reportview.Page{Kind: "certify", Name: "good", Verdict: "certified", Items: []reportview.Item{
		{ID: "eventstore/read", Verdict: "pass", Clauses: []string{"I-STORE-3"}}, {ID: "eventstore/same", Verdict: "pass", Clauses: []string{"I-STORE-1"}}}}
	bad := reportview.Page{Kind: "certify", Name: "bad", Verdict: "not-certified", Items: []reportview.Item{
		{ID: "eventstore/read", Verdict: "fail", Clauses: []string{"I-STORE-3"}, Repro: "loom-conform certify eventstore --run '^eventstore/read$'",
			Message: "eventstore/read [I-STORE-3]: Read(x) = 1 envelope, want 2\n(-want +got):\ndiffers at /1\n  [\n-   {\"sequence\":1}\n  ]"},
		{ID: "eventstore/same", Verdict: "pass", Clauses: []string{"I-STORE-1"}}}}
	m, err := reportview.BuildMatrix([]reportview.Page{ok, bad})
	if err != nil {
		t.Fatal(err)
	}
	m.Columns[1].Report = "reports/bad.html"
	var b bytes.Buffer
	if err := reportview.WriteMatrixHTML(&b, m); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, want := range []string{`<span class="del">-   {&#34;sequence&#34;:1}</span>`, `reproduce:</span> <code>loom-conform certify eventstore --run &#39;^eventstore/read$&#39;</code>`,
		`href="reports/bad.html#check-eventstore/read"`, `<a href="reports/bad.html" title="its report">bad</a>`,
		`<option value="not-all-pass" selected>`, `eventstore/<wbr>read`} {
		if !strings.Contains(h, want) {
			t.Errorf("matrix page lacks %s", want)
		}
	}
}

// A failure the ledger excuses is shown folded and not as a red failure; a check id breaks only
// after its "/", never inside a word; a page whose items have no RFC 2119 level has no level column.
func TestWaivedFoldedIDsWholeLevelsOnlyWhereThere(t *testing.T) {
	p := reportview.Page{Items: []reportview.Item{
		{ID: "eventstore/roundtrip-values", Verdict: "fail", Expected: "known, tracked", Message: "m"},
		{ID: "fold/basic", Verdict: "pass", Clauses: []string{"I-STORE-3"}},
	}}
	var b bytes.Buffer
	if err := reportview.WriteHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	if !strings.Contains(h, `<details><summary><h3 id="check-eventstore/roundtrip-values-h"><span class="v v-waived">fail · excused</span>`) {
		t.Errorf("an excused failure is not folded and muted:\n%s", h)
	}
	if !strings.Contains(h, `<th scope="col">group</th><th scope="col">requirement</th>`) {
		t.Error("a page whose items have no level shows a level column")
	}
	if !strings.Contains(h, `eventstore/<wbr>roundtrip-values`) {
		t.Error("a check id is not broken only after its slash")
	}
}

// Clause links point into the docs of the harness that wrote the page: its commit, else its
// release tag, else main.
func TestDocsRef(t *testing.T) {
	for _, tc := range []struct{ version, revision, want string }{
		{"0.1.0", "0123456789abcdef0123456789abcdef01234567", "0123456789abcdef0123456789abcdef01234567"},
		{"0.1.0", "", "v0.1.0"}, {"v1.2.3-rc.1", "", "v1.2.3-rc.1"}, {"dev", "", "main"}, {"", "", "main"},
	} {
		if got := reportview.DocsRef(tc.version, tc.revision); got != tc.want {
			t.Errorf("DocsRef(%q, %q) = %q, want %q", tc.version, tc.revision, got, tc.want)
		}
	}
	if base := reportview.DocsBase("0.1.0"); !strings.HasPrefix(base, reportview.Repository+"/blob/") || strings.Contains(base, "/blob/main/") {
		t.Errorf("DocsBase(0.1.0) = %s, want the docs at a commit or tag", base)
	}
}
