package fitness

import (
	"cmp"
	"context"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// slowUnwiredHook returns a kernel mutant whose unwired path does 10 % more work than a plain
// run, of the kernel's own kind: every hundredth live step (the workload's flow has ten) runs one
// whole plain execution on a side kernel. Work of the same kind grows with the machine's load as
// an execution does; a pure arithmetic spin priced at 10 % of an execution came out at 5-10 % in
// the gate, depending on what else the runner was doing. The second result reports what the side
// kernel failed with, if anything.
func slowUnwiredHook(t *testing.T) (kernel.Hooks, func() error) {
	t.Helper()
	var steps atomic.Uint64
	var mu sync.Mutex
	var one func() error
	var failed error
	hook := func() {
		n := steps.Add(1)
		if n%100 != 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		// A fresh side kernel every 100 executions, as the workload's Reset does for its own: a
		// store that grew all along would make the slowed side dearer with every round.
		if n%10_000 == 100 || one == nil {
			side, err := newRuntime(kernel.Config{}, "x")
			if err != nil {
				failed = cmp.Or(failed, err)
				return
			}
			one = startLoop(side, "x")
		}
		if err := one(); err != nil {
			failed = cmp.Or(failed, err)
		}
	}
	return kernel.Hooks{UnwiredWork: hook}, func() error { mu.Lock(); defer mu.Unlock(); return failed }
}

// Reference: spec §10, the G2 relative-ratio bench gate. The gate must never fail the unmodified
// kernel and never pass a kernel whose unwired path does ~10 % more work. By default each side runs
// twice and the slowed one until the gate fails it, at most five times (the suite must not flake
// on a loaded machine: unknown is allowed, a wrong verdict is not);
// LOOM_CONFORM_G2_PROOF_RUNS=20 (make g2-proof) runs 20 of each and requires ≥ 19 right verdicts.
func TestG2GateCatchesSlowUnwiredPath(t *testing.T) {
	// The default run measures as the gate does, twice for each kernel (the slowed one until it
	// fails, at most five times): one confident rejection and no wrong verdict is the proof.
	runs := 2
	if v := os.Getenv("LOOM_CONFORM_G2_PROOF_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("LOOM_CONFORM_G2_PROOF_RUNS=%q: want a positive count", v)
		}
		runs = n
	}
	var gate Gate
	for _, g := range Gates() {
		if g.ID == "g2/ratio" {
			gate = g
		}
	}
	if gate.Ratio == nil {
		t.Fatal("no g2/ratio gate in the registry")
	}
	// run runs the gate once on a kernel with hooks and tallies its verdict in got.
	var rejection string
	run := func(hooks kernel.Hooks, got map[Verdict]int) {
		r := Run(context.Background(), []Gate{gate}, Options{Workload: WorkloadOptions{Hooks: hooks}})[0]
		got[r.Verdict]++
		t.Logf("%s: %s %s (%.1fs)", r.Verdict, r.Figure, r.Detail, r.Seconds)
		if r.Verdict == Fail && rejection == "" {
			rejection = "g2/ratio: " + r.Detail
		}
	}
	// By default the slowed kernel is measured until the gate fails it (at most 5 runs): the proof
	// needs one confident rejection, never a pass. The two kernels take turns, so a busy phase of
	// the machine falls on both.
	mutantRuns, untilFail := 5, true
	if runs >= 20 {
		mutantRuns, untilFail = runs, false
	}
	mutant, clean := map[Verdict]int{}, map[Verdict]int{}
	for i := range max(runs, mutantRuns) {
		if i < mutantRuns && !(untilFail && mutant[Fail] > 0) {
			hooks, failed := slowUnwiredHook(t)
			run(hooks, mutant)
			if err := failed(); err != nil {
				t.Fatalf("slowed unwired path: side execution: %v", err)
			}
		}
		if i < runs {
			run(kernel.Hooks{}, clean)
		}
	}
	t.Logf("slowed unwired path: %d of %d runs fail (%d unknown); unmodified kernel: %d of %d pass (%d unknown)",
		mutant[Fail], mutant[Fail]+mutant[Unknown]+mutant[Pass], mutant[Unknown], clean[Pass], runs, clean[Unknown])
	proof.Rejected(t, "kernel-hook/g2/unwired-work", "fitness/g2-gate-proof", proof.Failure("fitness/g2-gate-proof", nil, "the G2 gate on the slowed unwired path", rejection))
	if mutant[Pass] > 0 {
		t.Errorf("g2/ratio [S10.g2.behavioural-and-ratio]: Run(slowed unwired path) = pass %d of %d times, want never", mutant[Pass], runs)
	}
	if clean[Fail] > 0 {
		t.Errorf("g2/ratio [S10.g2.behavioural-and-ratio]: Run(unmodified kernel) = fail %d of %d times, want never (a false failure)", clean[Fail], runs)
	}
	if runs >= 20 {
		if mutant[Fail] < runs*19/20 {
			t.Errorf("g2/ratio [S10.g2.behavioural-and-ratio]: slowed unwired path failed %d of %d runs, want ≥ 19 of 20", mutant[Fail], runs)
		}
		if clean[Pass] < runs*19/20 {
			t.Errorf("g2/ratio [S10.g2.behavioural-and-ratio]: unmodified kernel passed %d of %d runs, want ≥ 19 of 20", clean[Pass], runs)
		}
	}
}
