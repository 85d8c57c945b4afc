package kernelprops

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// frequencySeeds is the fixed seed set the frequency tests draw their scenarios from.
const frequencySeeds = 200

// pathCases counts, over the scenarios of the fixed seed set, in how many cases each path of the
// rule of spec §3 (and each op outcome) occurred at least once.
func pathCases(t *testing.T) (map[string]int, Tally) {
	t.Helper()
	gen := genScenario(8, true, true)
	cases := map[string]int{}
	var total Tally
	for seed := range frequencySeeds {
		s := gen.Example(seed)
		ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
		o, err := driveOrErr(ctx, Reference(), s)
		cancel()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var tally Tally
		for _, r := range o.Runs {
			rt, err := checkRunModel(r, o.Log[:r.From], o.Log)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			tally.add(rt)
		}
		total.add(tally)
		for _, e := range o.Log {
			if e.EventType == "EFFECT_INDOUBT" {
				tally.Taints["in-doubt"]++
			}
		}
		for name, n := range map[string]int{
			"served": tally.Served, "served-in-branch": tally.ServedInBranch, "appended-because-live": tally.AppendedLive,
			"stamped": tally.Stamped, "unstamped-in-flight": tally.UnstampedParallel, "unstamped-unserved": tally.UnstampedUnserved,
			"unstamped-kernel-fact": tally.UnstampedKernel, "unmatchable": tally.Unmatchable, "effect-emit": tally.EffectEmits,
			"typed-failure": tally.Typed, "untyped-failure": tally.Taints["untyped"], "timeout": tally.Taints["timeout"],
			"cancelled": tally.Taints["cancelled"], "decider-threw": tally.Taints["decider"], "branch-copies-meet": tally.RunsWithBranchCopy,
			"in-doubt-park": tally.Taints["in-doubt"],
		} {
			if n > 0 {
				cases[name]++
			}
		}
	}
	return cases, total
}

// Reference: DESIGN §6 — the generator reaches every interesting path of the emit rule (spec §3)
// often enough that the properties cannot silently go vacuous: the share of cases of the fixed
// seed set in which each path occurs is at least its floor (about half of what was measured). The
// paths are counted by the model of spec §3 that the emit-serving-model property checks the kernel
// against, so a reached path is also a checked one.
func TestGeneratorReachesInterestingPaths(t *testing.T) {
	cases, total := pathCases(t)
	// measured over this seed set: served 39, served-in-branch 12, appended-because-live 8,
	// stamped 57, unstamped-in-flight 25, unstamped-unserved 15, unstamped-kernel-fact 11,
	// unmatchable 12, effect-emit 16, typed-failure 10, untyped-failure 10, timeout 10,
	// cancelled 9, decider-threw 10, branch-copies-meet 19, in-doubt-park 8 (percent of cases)
	floors := map[string]int{
		"served": 20, "served-in-branch": 5, "appended-because-live": 3, "stamped": 30, "unstamped-in-flight": 13,
		"unstamped-unserved": 7, "unstamped-kernel-fact": 6, "unmatchable": 6, "effect-emit": 9, "typed-failure": 5,
		"untyped-failure": 5, "timeout": 4, "cancelled": 4, "decider-threw": 5, "branch-copies-meet": 9, "in-doubt-park": 3,
	}
	for name, floor := range floors {
		pct := 100 * cases[name] / frequencySeeds
		t.Logf("%-22s %3d%% of cases", name, pct)
		if pct < floor {
			t.Errorf("kernelprops/generator-frequency [S3.emit.serve-skip S3.emit.serve-append]: share of cases reaching %s = %d%%, want >= %d%%", name, pct, floor)
		}
	}
	t.Logf("totals over %d cases: %+v", frequencySeeds, total)
}

// Reference: I-KERNEL-18, spec §3 never-timing — the random cases, not only the fixed examples,
// catch a kernel whose parallel branches share one emit count (the defect of a shared counter),
// and a runtime that normalises its own snapshots at a non-current profile.
func TestRandomCasesCatchMutants(t *testing.T) {
	for _, m := range []struct {
		name  string
		hooks kernel.Hooks
		prop  string
	}{
		{"shared-parallel-emit-count", kernel.Hooks{SharedParallelEmitCount: true}, "kernelprops/emit-serving-model"},
		{"normalizes-own-snapshots", kernel.Hooks{NormalizeOwnSnapshots: true}, "kernelprops/snapshot-equivalence"},
	} {
		tg := Target{Name: m.name, Mod: func(c *kernel.Config) { c.Hooks = m.hooks }}
		var p Property
		for _, q := range Properties() {
			if q.ID == m.prop {
				p = q
			}
		}
		caught := 0
		for seed := range frequencySeeds {
			ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
			if err := p.Check(ctx, tg, p.Gen.Example(seed)); err != nil {
				caught++
			}
			cancel()
		}
		t.Logf("%s: %s fails %d of %d random cases", m.name, m.prop, caught, frequencySeeds)
		if caught == 0 {
			t.Errorf("kernelprops/random-catches [S3.emit.never-timing S3.snapshot.equivalence]: %s(%s) over %d random cases = no violation, want at least one",
				m.prop, m.name, frequencySeeds)
		}
	}
}
