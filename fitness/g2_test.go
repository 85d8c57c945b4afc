package fitness

import (
	"context"
	"math"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// spin does n steps of a xorshift generator: pure CPU work, fine-grained enough to price in
// fractions of a kernel execution.
func spin(n int) {
	x := uint64(n) | 1
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	runtime.KeepAlive(x)
}

// slowUnwiredHook returns a kernel mutant whose unwired path does about 10 % more work than a
// plain run: each of the workload's ten live steps spins for 1 % of one execution. The spin is
// priced where it runs, by the gate's own meter, against a workload like the gate's: the unwired
// kernel with a trial spin in its hook (B) against the same kernel without (A), so B/A is
// 1 + 10 × trial/execution, and the trial is scaled to 1 %.
func slowUnwiredHook(t *testing.T) kernel.Hooks {
	t.Helper()
	const trial = 5_000 // a few % of an execution per step: B/A well above the noise
	var pairs [2]Pair
	for i, h := range []kernel.Hooks{{}, {UnwiredWork: func() { spin(trial) }}} {
		p, err := g2Unwired(WorkloadOptions{Hooks: h})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		pairs[i] = p
	}
	reset := func() error {
		if err := pairs[0].Reset(); err != nil {
			return err
		}
		return pairs[1].Reset()
	}
	s, err := Measure(Pair{A: pairs[0].B, B: pairs[1].B, Reset: reset}, 31, 4*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	perExec := (math.Exp(hodgesLehmann(logs(s.AB)).Est) - 1) / 10 // spin(trial) per execution
	iters := max(1, int(trial*0.01/perExec+0.5))
	t.Logf("spin(%d) in a step costs %.4f executions; the hook spins %d per step", trial, perExec, iters)
	return kernel.Hooks{UnwiredWork: func() { spin(iters) }}
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
	// count runs the gate n times; with untilFail it stops at the first failure.
	var rejection string
	count := func(o WorkloadOptions, n int, untilFail bool) map[Verdict]int {
		got := map[Verdict]int{}
		for range n {
			r := Run(context.Background(), []Gate{gate}, Options{Workload: o})[0]
			got[r.Verdict]++
			t.Logf("%s: %s %s (%.1fs)", r.Verdict, r.Figure, r.Detail, r.Seconds)
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
