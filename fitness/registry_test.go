package fitness_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/catalog"
	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/spec"
)

var update = flag.Bool("update", false, "rewrite docs/fitness.md")

// Every gate is well-formed: a unique id, known clauses, a threshold and an enforcement place,
// and what it runs exists (check patterns resolve to Go tests in the catalog, workloads exist).
func TestGatesValid(t *testing.T) {
	known := map[string]bool{}
	for _, c := range spec.Clauses() {
		known[c.ID] = true
	}
	checks := catalog.Checks()
	seen := map[string]bool{}
	for _, g := range fitness.Gates() {
		if g.ID == "" || seen[g.ID] {
			t.Errorf("gate %q: empty or duplicate id", g.ID)
		}
		seen[g.ID] = true
		if len(g.Clauses) == 0 || g.Threshold == "" || g.Enforced == "" || g.Guarantee == "" {
			t.Errorf("gate %s: clauses, guarantee, threshold and enforcement place are required", g.ID)
		}
		for _, id := range g.Clauses {
			if !known[id] {
				t.Errorf("gate %s: unknown clause %q", g.ID, id)
			}
		}
		if g.Pending != "" {
			continue
		}
		switch g.Kind {
		case fitness.KindChecks:
			if _, err := fitness.ResolveChecks(g.Checks, checks); err != nil || len(g.Checks) == 0 {
				t.Errorf("gate %s: checks %v: %v", g.ID, g.Checks, err)
			}
		case fitness.KindRatio:
			if _, ok := fitness.Workloads()[g.Ratio.Workload]; !ok {
				t.Errorf("gate %s: unknown workload %q", g.ID, g.Ratio.Workload)
			}
		case fitness.KindBench:
			if g.Bench == nil || g.Bench.ID == "" || g.Bench.Metric == "" || g.Bench.Benchtime == "" || (g.Bench.Min == 0) == (g.Bench.Max == 0) {
				t.Errorf("gate %s: a bench needs an id, a metric and exactly one of min and max", g.ID)
			}
		}
	}
	if _, err := fitness.CoverageLedger(); err != nil {
		t.Error(err)
	}
}

// docs/fitness.md is generated from the registry; `go test ./fitness -run TestFitnessDocCurrent
// -update` (or make docs) rewrites it.
func TestFitnessDocCurrent(t *testing.T) {
	var buf bytes.Buffer
	if err := fitness.WriteDoc(&buf, fitness.Gates()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "fitness.md")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("docs/fitness.md: %v (run make docs)", err)
	}
	if diff := cmp.Diff(buf.String(), string(got)); diff != "" {
		t.Errorf("fitness/doc-current [S10.fitness.gated]: docs/fitness.md is stale; run make docs (-want +got):\n%s", diff)
	}
}
