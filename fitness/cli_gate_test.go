package fitness

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
)

// Reference: I-PERF-10 — the perf/cli-start gate rejects a build of loom-conform whose start does
// package-level work every command pays (the mutant cli-build/start/init-work, built with
// -tags loom_mutant_initwork): never a pass, and a failure within three runs (a run the machine's
// noise leaves unknown is measured again).
func TestCLIStartGateCatchesInitWork(t *testing.T) {
	if testing.Short() {
		t.Skip("builds loom-conform and times its start: not in -short")
	}
	var gate Gate
	for _, g := range Gates() {
		if g.ID == "perf/cli-start" {
			gate = g
		}
	}
	if gate.Ratio == nil {
		t.Fatal("no perf/cli-start gate in the registry")
	}
	got := map[Verdict]int{}
	var rejection string
	for range 3 {
		r := Run(context.Background(), []Gate{gate}, Options{Root: "..", Workload: WorkloadOptions{Root: "..", BuildTags: "loom_mutant_initwork"}})[0]
		got[r.Verdict]++
		t.Logf("%s: %s %s (%.1fs)", r.Verdict, r.Figure, r.Detail, r.Seconds)
		if r.Verdict == Fail {
			rejection = "perf/cli-start: " + r.Detail
			break
		}
		if r.Verdict == Pass {
			break
		}
	}
	if got[Pass] > 0 || got[Fail] == 0 {
		t.Fatalf("perf/cli-start [I-PERF-10]: Run(a build that compiles 250 patterns at start) = %v, want a failure and never a pass", got)
	}
	proof.Rejected(t, "cli-build/start/init-work", "fitness/cli-start-gate-proof", proof.Failure("fitness/cli-start-gate-proof", nil, "the perf/cli-start gate on a build with start-up work", rejection))
}
