package fitness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/loom-kernel/loom-conform/spec"
)

var fakeCatalog = []spec.Check{
	{ID: "x/one", Kind: spec.KindTest, Clauses: []string{"S10.pins.drift"}, Where: "pkg/a:TestOne"},
	{ID: "x/two", Kind: spec.KindTest, Clauses: []string{"S10.pins.drift"}, Where: "pkg/b:TestTwo"},
	{ID: "y/vec", Kind: spec.KindVector, Clauses: []string{"S10.pins.drift"}, Where: "vectors/corpus/v.json"},
}

func fakeGoTest(out string, err error) (GoTest, *[]string) {
	var calls []string
	return func(_ context.Context, _ string, args ...string) ([]byte, error) {
		calls = append(calls, strings.Join(args, " "))
		return []byte(out), err
	}, &calls
}

func TestResolveChecks(t *testing.T) {
	got, err := ResolveChecks([]string{"x/*"}, fakeCatalog)
	if err != nil || len(got) != 2 {
		t.Fatalf("ResolveChecks(x/*) = %d checks, %v; want 2, nil", len(got), err)
	}
	if _, err := ResolveChecks([]string{"z/*"}, fakeCatalog); err == nil {
		t.Error("ResolveChecks(z/*) = nil error, want an error: a pattern matching nothing makes a vacuous gate")
	}
	if _, err := ResolveChecks([]string{"y/vec"}, fakeCatalog); err == nil {
		t.Error("ResolveChecks(a vector check) = nil error, want an error: go test cannot run it")
	}
}

// Each kind of gate fails when what it runs fails (spec §10: gated in CI).
func TestGateFailurePaths(t *testing.T) {
	checks := Gate{ID: "g", Kind: KindChecks, Checks: []string{"x/*"}}
	run := func(g Gate, gt GoTest) Result {
		return Run(context.Background(), []Gate{g}, Options{Checks: fakeCatalog, GoTest: gt})[0]
	}

	pass, calls := fakeGoTest("=== RUN TestOne\n--- PASS: TestOne (0.00s)\nPASS\n", nil)
	if r := run(checks, pass); r.Verdict != Pass {
		t.Errorf("checks gate, tests pass: verdict %s (%s), want pass", r.Verdict, r.Detail)
	}
	if len(*calls) != 2 || !strings.Contains((*calls)[0], "-run ^(TestOne)$ ./pkg/a") {
		t.Errorf("checks gate ran %q, want one go test per package with an anchored -run", *calls)
	}
	failing, _ := fakeGoTest("--- FAIL: TestOne (0.00s)\n    x_test.go:9: boom\nFAIL\n", errors.New("exit status 1"))
	if r := run(checks, failing); r.Verdict != Fail || !strings.Contains(r.Detail, "boom") {
		t.Errorf("checks gate, a test fails: verdict %s (%q), want fail with the test output", r.Verdict, r.Detail)
	}
	skipped, _ := fakeGoTest("--- SKIP: TestOne (0.00s)\n    no PostgreSQL\nPASS\n", nil)
	if r := run(checks, skipped); r.Verdict != Unknown {
		t.Errorf("checks gate, the test skipped: verdict %s, want unknown (not judged is not a pass)", r.Verdict)
	}
	subSkip, _ := fakeGoTest("    --- SKIP: TestOne/store-now (0.00s)\n        testing.go:38: target does not implement storeNow\n--- PASS: TestOne (0.00s)\nPASS\n", nil)
	if r := run(checks, subSkip); r.Verdict != Pass || !strings.Contains(r.Figure, "subtests skipped") {
		t.Errorf("checks gate, a subtest skipped for an undeclared method: verdict %s (%s), want pass naming the skip (a kit's own skip is its verdict)", r.Verdict, r.Figure)
	}
	// A reference store claiming an older SPI skips the newer checks: never judged, so the gate fails.
	heldBack, _ := fakeGoTest("    --- SKIP: TestOne/eventstore/delete-through (0.00s)\n        testing.go:38: needs EventStore SPI 2.6.0, target held to 2.0.0\n--- PASS: TestOne (0.00s)\nPASS\n", nil)
	if r := run(checks, heldBack); r.Verdict != Fail || !strings.Contains(r.Detail, "eventstore/delete-through") {
		t.Errorf("checks gate, a kit check skipped below the current SPI: verdict %s (%s), want fail naming it", r.Verdict, r.Detail)
	}
	if r := run(Gate{ID: "g", Kind: KindChecks, Checks: []string{"nope"}}, pass); r.Verdict != Fail {
		t.Errorf("checks gate naming no catalog check: verdict %s, want fail", r.Verdict)
	}

	bench := Gate{ID: "b", Kind: KindBench, Bench: &Bench{Package: "p", Name: "BenchmarkX", Metric: "store/raw", Benchtime: "1x", Min: 0.7}}
	slow, _ := fakeGoTest(strings.Repeat("BenchmarkX-2   3   1000 ns/op   0.41 store/raw\n", 5), nil)
	if r := run(bench, slow); r.Verdict != Fail {
		t.Errorf("bench gate, metric 0.41 < 0.7: verdict %s (%s), want fail", r.Verdict, r.Detail)
	}
	fast, _ := fakeGoTest(strings.Repeat("BenchmarkX-2   3   1000 ns/op   0.93 store/raw\n", 5), nil)
	if r := run(bench, fast); r.Verdict != Pass {
		t.Errorf("bench gate, metric 0.93 ≥ 0.7: verdict %s (%s), want pass", r.Verdict, r.Detail)
	}
	silent, _ := fakeGoTest("BenchmarkX-2   3   1000 ns/op\n", nil)
	if r := run(bench, silent); r.Verdict != Fail {
		t.Errorf("bench gate, metric missing: verdict %s, want fail", r.Verdict)
	}

	if r := run(Gate{ID: "p", Kind: KindChecks, Pending: "not built"}, pass); r.Verdict != Pending {
		t.Errorf("pending gate: verdict %s, want pending (never pass)", r.Verdict)
	}
	if r := run(Gate{ID: "r", Kind: KindRatio, Ratio: &Ratio{Workload: "nope", Max: 1}}, pass); r.Verdict != Fail {
		t.Errorf("ratio gate with an unknown workload: verdict %s, want fail", r.Verdict)
	}
}

func TestCoverageGate(t *testing.T) {
	clauses := spec.Clauses()
	var must spec.Clause
	for _, c := range clauses {
		if c.Level == spec.Must {
			must = c
			break
		}
	}
	// A catalog covering every clause but one MUST clause.
	var all []spec.Check
	for i, c := range clauses {
		if c.ID != must.ID {
			all = append(all, spec.Check{ID: "c" + string(rune('a'+i%26)) + c.ID, Kind: spec.KindTest, Clauses: []string{c.ID}, Where: "p:T"})
		}
	}
	gate := Gate{ID: "coverage/must", Kind: KindCoverage}
	run := func(checks []spec.Check, ledger []LedgerEntry) Result {
		return Run(context.Background(), []Gate{gate}, Options{Checks: checks, CoverageLedger: ledger})[0]
	}
	if r := run(all, nil); r.Verdict != Fail || !strings.Contains(r.Detail, must.ID) {
		t.Errorf("coverage gate, %s uncovered and unlisted: verdict %s (%s), want fail naming it", must.ID, r.Verdict, r.Detail)
	}
	if r := run(all, []LedgerEntry{{ID: must.ID, Reason: "reviewed"}}); r.Verdict != Pass {
		t.Errorf("coverage gate, %s in the ledger: verdict %s (%s), want pass", must.ID, r.Verdict, r.Detail)
	}
	full := append(all, spec.Check{ID: "last", Kind: spec.KindTest, Clauses: []string{must.ID}, Where: "p:T"})
	if r := run(full, []LedgerEntry{{ID: must.ID, Reason: "reviewed"}}); r.Verdict != Fail || !strings.Contains(r.Detail, "covered now") {
		t.Errorf("coverage gate, a ledger entry now covered: verdict %s (%s), want fail (the ledger must be kept true)", r.Verdict, r.Detail)
	}
}

func TestBenchMetric(t *testing.T) {
	out := []byte("goos: linux\nBenchmarkAppendSingle-2   3   81234 ns/op   40000 store-ns/op   0.95 store/raw\nBenchmarkAppendSingle-2   3   81234 ns/op   0.91 store/raw\nBenchmarkOther-2 3 1 ns/op 0.1 store/raw\n")
	got := BenchMetric(out, "BenchmarkAppendSingle", "store/raw")
	if len(got) != 2 || got[0] != 0.95 || got[1] != 0.91 {
		t.Errorf("BenchMetric = %v, want [0.95 0.91]", got)
	}
}

func TestMutantsGate(t *testing.T) {
	gate := Gate{ID: "mutants/killed", Kind: KindMutants}
	mutants := []spec.Mutant{{ID: "store/x/a", Kind: "store", Clauses: []string{"S10.pins.drift"}, CaughtBy: []string{"x/one"}, Where: "pkg/a:TestOne"}}
	dir := t.TempDir()
	run := func(dir string) Result {
		return Run(context.Background(), []Gate{gate}, Options{Checks: fakeCatalog, Mutants: mutants, ProofsDir: dir})[0]
	}
	if r := run(""); r.Verdict != Unknown {
		t.Errorf("mutants gate without proof records: verdict %s, want unknown", r.Verdict)
	}
	if r := Run(context.Background(), []Gate{gate}, Options{Checks: fakeCatalog, Mutants: mutants, RequireProofs: true})[0]; r.Verdict != Fail {
		t.Errorf("mutants gate without proof records where they are required (CI): verdict %s, want fail", r.Verdict)
	}
	if r := run(dir); r.Verdict != Fail || !strings.Contains(r.Detail, "store/x/a") {
		t.Errorf("mutants gate, no kill recorded: verdict %s (%s), want fail naming the survivor", r.Verdict, r.Detail)
	}
	root, err := proof.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	build, err := proof.BuildID(root)
	if err != nil {
		t.Fatal(err)
	}
	// A record of another build (a stale run, or one written by hand) proves nothing.
	stale := `{"mutant":"store/x/a","check":"x/one","test":"TestOne","evidence":"x/one [S10.pins.drift]: Op() = 1, want 2","build":"src:0000"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "proofs-1.jsonl"), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(dir); r.Verdict != Fail || !strings.Contains(r.Detail, "refused") {
		t.Errorf("mutants gate, the kill recorded by another build: verdict %s (%s), want fail naming the refused record", r.Verdict, r.Detail)
	}
	rec := `{"mutant":"store/x/a","check":"x/one","test":"TestOne","evidence":"x/one [S10.pins.drift]: Op() = 1, want 2","build":"` + build + `"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "proofs-1.jsonl"), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(dir); r.Verdict != Pass {
		t.Errorf("mutants gate, every mutant killed: verdict %s (%s), want pass", r.Verdict, r.Detail)
	}
}

// Sharded runs merge into the report of one whole run.
func TestShardsMergeIntoOneRun(t *testing.T) {
	gates := []Gate{
		{ID: "a/pending", Kind: KindChecks, Pending: "not built"},
		{ID: "b/checks", Kind: KindChecks, Checks: []string{"x/*"}},
		{ID: "c/coverage-ish", Kind: KindChecks, Checks: []string{"x/one"}},
		{ID: "d/failing", Kind: KindChecks, Checks: []string{"nope"}},
		{ID: "e/pending", Kind: KindChecks, Pending: "not built"},
	}
	pass, _ := fakeGoTest("--- PASS: TestOne (0.00s)\nPASS\n", nil)
	o := Options{Checks: fakeCatalog, GoTest: pass}
	whole := NewReport(Run(context.Background(), gates, o))
	var parts []Report
	for i := 1; i <= 3; i++ {
		s := shard.Shard{Index: i, Count: 3}
		r := NewReport(Run(context.Background(), Shard(gates, s), o))
		r.Shard = s.String()
		parts = append(parts, r)
	}
	merged, err := MergeReports([]Report{parts[2], parts[0], parts[1]}, gates)
	if err != nil {
		t.Fatal(err)
	}
	strip := func(r Report) Report {
		for i := range r.Results {
			r.Results[i].Seconds = 0
		}
		return r
	}
	if diff := cmp.Diff(strip(whole), strip(merged)); diff != "" {
		t.Errorf("MergeReports(3 shards) differs from one run (-want +got):\n%s", diff)
	}
	if _, err := MergeReports(parts[:2], gates); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("MergeReports(2 of 3 shards) = %v, want an error naming the missing shard", err)
	}
	if _, err := MergeReports([]Report{whole}, gates); err == nil {
		t.Error("MergeReports(a whole run) = nil error, want one: it is not a shard")
	}
}
