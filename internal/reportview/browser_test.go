package reportview_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/internal/browsercheck"
	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/vectors"
)

// deviant answers like the reference fold except that every fold vector of profile 1.25.0 gets an
// empty state: a fold that fails a family of vectors.
type deviant struct{}

func (deviant) Answer(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	if req.Kind == vectors.KindFold && req.Profile == "1.25.0" {
		s := `{}`
		return vectors.Response{ID: req.ID, Output: &s}, nil
	}
	return vectors.Reference{}.Answer(ctx, req)
}

// pages are the HTML pages of a failing vectors run, a goldens check with a divergence and a
// fitness run with a failed, an unknown and a pending gate.
func pages(t *testing.T) map[string]reportview.Page {
	t.Helper()
	corpus, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	vr := vectors.Run(context.Background(), corpus, deviant{}, vectors.Config{Target: "node deviant-fold.js"})
	if vr.OK() {
		t.Fatal("the deviant fold passed every vector")
	}
	gr := goldens.Report{Kind: goldens.ReportKind, Corpus: "sha256:00", Checked: 2, Failed: 1, Results: []goldens.Result{
		{Name: "basic", Clauses: []string{"S10.goldens.replay"}, Verdict: "pass", Millis: 12},
		{Name: "retry", Clauses: []string{"S10.goldens.replay"}, Verdict: "fail", Millis: 30,
			Problems: []goldens.Problem{{Stage: "fresh run", Message: "envelope 3 STEP_RETRYING /payload/attempt\n(-want +got):\n- 2\n+ 3"}}},
	}}
	fr := fitness.NewReport([]fitness.Result{
		{Gate: "kits/memory", Verdict: fitness.Pass, Threshold: "every check", Clauses: []string{"S10.fitness.kits"}, Seconds: 3},
		{Gate: "perf/g2", Verdict: fitness.Fail, Figure: "1.12", Threshold: "≤ 1.05", Clauses: []string{"S10.fitness.g2"}, Detail: "B/A 95 % interval 1.09..1.15 lies beyond 1.05"},
		{Gate: "perf/fold", Verdict: fitness.Unknown, Threshold: "≤ 2", Clauses: []string{"S10.fitness.kits"}, Detail: "A/A noise ±14 %"},
		{Gate: "coverage/pending", Verdict: fitness.Pending, Threshold: "—", Clauses: []string{"S10.fitness.kits"}},
	})
	// porcupine's drawing of a stale read, as a linearizability failure carries it.
	model := porcupine.Model{Init: func() any { return 0 },
		Step: func(st, in, out any) (bool, any) {
			if in.(int) < 0 {
				return out.(int) == st.(int), st
			}
			return true, in.(int)
		},
		DescribeOperation: func(in, out any) string { return fmt.Sprintf("%v -> %v", in, out) }}
	_, info := porcupine.CheckOperationsVerbose(model, []porcupine.Operation{
		{ClientId: 0, Input: 1, Output: 0, Call: 0, Return: 10}, {ClientId: 1, Input: -1, Output: 0, Call: 20, Return: 30}}, 0)
	var drawing bytes.Buffer
	if err := porcupine.Visualize(model, info, &drawing); err != nil {
		t.Fatal(err)
	}
	wp := reportview.Page{Title: "loom store certification", Verdict: "not-certified", Tone: reportview.Bad, Headline: "NOT CERTIFIED",
		Items: []reportview.Item{{ID: "eventstore/linearizable", Group: "eventstore", Verdict: "fail", Blocking: true, Clauses: []string{"I-STORE-14"},
			Message:        "eventstore/linearizable [I-STORE-14]: CheckOperations(2 ops) = \"not linearizable\", want a linearizable history\nwitness: …",
			WitnessDrawing: drawing.String(), Repro: "loom-conform certify eventstore --run '^eventstore/linearizable$' --seed 1"}}}
	return map[string]reportview.Page{"vectors": vr.HTMLPage("loom-conform"), "goldens": gr.HTMLPage("loom-conform"), "fitness": fr.HTMLPage("loom-conform"), "witness": wp}
}

// The pages of vectors, goldens and fitness, and the matrix, in a real browser at 1280×800: the
// first failure is on screen, links resolve, nothing is fetched, no console error, AA contrast; the
// matrix's filter narrows it to the checks where implementations differ.
func TestPagesInBrowser(t *testing.T) {
	chrome := browsercheck.Require(t)
	b := browsercheck.Start(t, chrome)
	dir := t.TempDir()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	write := func(name string, f func(*bytes.Buffer) error) string {
		var buf bytes.Buffer
		if err := f(&buf); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	ps := pages(t)
	for name, p := range ps {
		file := write(name+".html", func(w *bytes.Buffer) error { return reportview.WriteHTML(w, p) })
		pg := b.Open(t, file, true)
		if name == "witness" { // open the drawing: porcupine's script runs in its frame
			var h float64
			pg.Eval(t, `(() => { const d = document.querySelector("details.witness"); d.open = true; return d.querySelector("iframe").getBoundingClientRect().height; })()`, &h)
			time.Sleep(500 * time.Millisecond)
			if h < 100 {
				t.Errorf("witness: the drawing's frame is %v px high when opened", h)
			}
		}
		pg.CheckCommon(t, root)
		var bottom float64
		pg.Eval(t, `document.querySelector("#attention .finding h3").getBoundingClientRect().bottom`, &bottom)
		if bottom <= 0 || bottom > browsercheck.Height {
			t.Errorf("%s: the first failure's heading ends at %v px, want inside the %d px viewport", name, bottom, browsercheck.Height)
		}
	}

	// Two folds side by side: the reference (every vector passes) and the deviant one.
	corpus, _ := vectors.Embedded()
	ref := vectors.Run(context.Background(), corpus, vectors.Reference{}, vectors.Config{Target: "reference"}).HTMLPage("loom-conform")
	m, err := reportview.BuildMatrix([]reportview.Page{ref, ps["vectors"]})
	if err != nil {
		t.Fatal(err)
	}
	differ, notAllPass := 0, 0
	for _, g := range m.Groups {
		for _, r := range g.Rows {
			if r.Differs() {
				differ++
			}
			if r.NotAllPass() {
				notAllPass++
			}
		}
	}
	file := write("matrix.html", func(w *bytes.Buffer) error { return reportview.WriteMatrixHTML(w, m) })
	pg := b.Open(t, file, true)
	pg.CheckCommon(t, root)
	var got struct{ First, All, Differ, Open int }
	pg.Eval(t, `(() => { const f = document.getElementById("filters"), rows = [...document.querySelectorAll("tbody.rows tr[data-differs]")];
		const vis = () => rows.filter(r => r.getClientRects().length).length, out = {First: vis()};
		const set = v => { f.elements.rows.value = v; f.elements.rows.dispatchEvent(new Event("change", {bubbles: true})); };
		set(""); out.All = vis(); set("differ"); out.Differ = vis();
		const d = document.querySelector("tbody.rows details"); d.open = true; out.Open = d.querySelector("pre").getClientRects().length;
		return out; })()`, &got)
	rows := 0
	for _, g := range m.Groups {
		rows += len(g.Rows)
	}
	if got.First != notAllPass || got.All != rows || got.Differ != differ || differ == 0 || got.Open == 0 {
		t.Errorf("matrix: %+v, want first the %d rows some fold does not pass, then all %d rows, %d (> 0) where the folds differ, and a failure that opens to its message",
			got, notAllPass, rows, differ)
	}
	if !strings.Contains(m.Columns[1].Name, "deviant") || m.Columns[0].Verdict != "pass" || m.Columns[1].Verdict != "fail" {
		t.Errorf("matrix columns = %+v", m.Columns)
	}
}
