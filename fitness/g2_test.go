package fitness

import (
	"context"
	"crypto/sha256"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/reference/kernel"
)

func spin(n int) {
	var h [32]byte
	for range n {
		h = sha256.Sum256(h[:])
	}
	runtime.KeepAlive(h)
}

// perCall measures the mean CPU cost of f over at least 50ms of CPU time.
func perCall(t *testing.T, f func() error) time.Duration {
	t.Helper()
	n, start := 0, cpuTime()
	for cpuTime()-start < 50*time.Millisecond {
		if err := f(); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return (cpuTime() - start) / time.Duration(n)
}

// slowUnwiredHook returns a kernel mutant whose unwired path does about 10 % more work than a
// plain run: each of the workload's ten live steps spins for 1 % of one plain execution.
func slowUnwiredHook(t *testing.T) kernel.Hooks {
	t.Helper()
	pair, err := g2Unwired(WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exec := perCall(t, pair.A)
	const k = 1000
	unit := perCall(t, func() error { spin(k); return nil }) / k
	iters := int(exec / 100 / max(unit, 1))
	t.Logf("plain execution %v, hook spins %d hashes (%v) per step", exec, iters, time.Duration(iters)*unit)
	return kernel.Hooks{UnwiredWork: func() { spin(iters) }}
}

// Reference: spec §10, the G2 relative-ratio bench gate. The gate must never fail the unmodified
// kernel and never pass a kernel whose unwired path does ~10 % more work. By default each side runs
// twice and the slowed one until the gate fails it, at most five times (the suite must not flake
// on a loaded machine: unknown is allowed, a wrong verdict is not);
// LOOM_CONFORM_G2_PROOF_RUNS=20 (make g2-proof) runs 20 of each and requires ≥ 19 right verdicts.
func TestG2GateCatchesSlowUnwiredPath(t *testing.T) {
	// The default run times 15 rounds of 10ms batches (the gate's own defaults are 21 rounds of 30ms):
	// enough to judge a 10 % difference beyond the A/A noise, at a fifth of the cost in every CI run.
	runs, minBatch, rounds := 2, 10*time.Millisecond, 15
	if v := os.Getenv("LOOM_CONFORM_G2_PROOF_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("LOOM_CONFORM_G2_PROOF_RUNS=%q: want a positive count", v)
		}
		runs, minBatch, rounds = n, 0, 0 // the gate's own defaults
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
	// count runs the gate n times; with untilFail it stops at the first failure.
	var rejection string
	count := func(o WorkloadOptions, n int, untilFail bool) map[Verdict]int {
		got := map[Verdict]int{}
		for range n {
			r := Run(context.Background(), []Gate{gate}, Options{Workload: o, MinBatch: minBatch, Rounds: rounds})[0]
			got[r.Verdict]++
			t.Logf("%s: %s %s (%d attempts)", r.Verdict, r.Figure, r.Detail, r.Attempts)
			if r.Verdict == Fail && rejection == "" {
				rejection = "g2/ratio: " + r.Detail
			}
			if untilFail && r.Verdict == Fail {
				break
			}
		}
		return got
	}
	// By default the slowed kernel is measured until the gate fails it (at most 5 runs, each with
	// its own bounded re-measurements): the proof needs one confident rejection, never a pass.
	mutantRuns, untilFail := 5, true
	if runs >= 20 {
		mutantRuns, untilFail = runs, false
	}
	mutant := count(WorkloadOptions{Hooks: slowUnwiredHook(t)}, mutantRuns, untilFail)
	clean := count(WorkloadOptions{}, runs, false)
	t.Logf("slowed unwired path: %d of %d runs fail (%d unknown); unmodified kernel: %d of %d pass (%d unknown)",
		mutant[Fail], mutant[Fail]+mutant[Unknown], mutant[Unknown], clean[Pass], runs, clean[Unknown])
	proof.Rejected(t, "kernel-hook/g2/unwired-work", "fitness/g2-gate-proof", rejection)
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
