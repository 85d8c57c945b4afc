package deploysim

import "github.com/loom-kernel/loom-conform/spec"

// BrokenFleet is a fleet with one defect, the scenario that exposes it, the invariant meant to
// catch it and the clauses the defect violates (not every clause of that invariant).
type BrokenFleet struct {
	Name     string
	Defect   string
	Broken   Broken
	Scenario string
	Catch    string
	Clauses  []string
}

func brokenFleets() []BrokenFleet {
	return []BrokenFleet{
		{"skip-fence", "workers append without a fence, so a woken zombie's write is refused only by luck (a conflict), not fenced", Broken{SkipFence: true}, "zombie", "sim/zombie-fenced", []string{"S6.fencing.zombie"}},
		{"double-deliver", "the dispatcher delivers a package to a second live worker while the first still holds its lease", Broken{DoubleDeliver: true}, "zombie", "sim/one-owner", []string{"I-DISPATCH-4"}},
		{"newer-snapshot-as-own", "an older worker reads snapshots a newer profile wrote as if its own fold wrote them", Broken{ReadNewerSnapshot: true}, "rollback", "sim/snapshot-every-k",
			// a mixed-fleet reading the spec leaves open (I-SIM-4), not a broken snapshot equivalence
			[]string{"I-SIM-4"}},
		{"rerun-completed-effect", "a re-dispatched worker re-runs the effect of a step whose completion is logged", Broken{RerunCompletedEffect: true}, "crash", "sim/served-not-rerun", []string{"S2.execute.served-not-rerun"}},
		{"migration-drops-resume-payloads", "upgraded workers snapshot migrated executions without _resumePayloads", Broken{MigrationDropsResumes: true}, "migration", "sim/snapshot-every-k", []string{"S4.snapshot.every-k", "S3.snapshot.equivalence", "I-SIM-2"}},
		{"append-after-lease-lost", "a worker told its lease is lost keeps running and appending", Broken{AppendAfterLeaseLost: true}, "zombie", "sim/lease-respected",
			// the worker ignores its lease; no successor holds the fence, so no fencing is broken
			[]string{"I-SIM-3"}},
		{"lose-on-crash", "the dispatcher drops the package of a worker that crashed before acking it", Broken{LoseOnCrash: true}, "crash", "sim/ends-visibly", []string{"I-DISPATCH-3", "I-SIM-2"}},
		{"running-no-owner", "a re-delivered package is acked without driving the execution, which stays running with no owner", Broken{AckWithoutDriving: true}, "crash", "sim/ends-visibly", []string{"S6.resume.is-migration", "I-SIM-2"}},
	}
}

// BrokenFleets lists the broken fleets (mutants of kind fleet).
func BrokenFleets() []BrokenFleet { return brokenFleets() }

// Mutants registers every broken fleet.
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	for _, b := range brokenFleets() {
		out = append(out, spec.Mutant{ID: "fleet/deploysim/" + b.Name, Kind: "fleet", Defect: b.Defect,
			Clauses: b.Clauses, CaughtBy: []string{b.Catch}, Where: "deploysim:TestBrokenFleetsCaught"})
	}
	return out
}

// Checks lists the invariants and the tests of this package.
func Checks() []spec.Check {
	out := invariantChecks()
	seen := map[string]bool{}
	var scClauses []string
	for _, sc := range Scenarios() {
		for _, c := range sc.Clauses {
			if !seen[c] {
				seen[c] = true
				scClauses = append(scClauses, c)
			}
		}
	}
	out = append(out,
		spec.Check{ID: "deploysim/scenario-sweep", Kind: spec.KindTest, Clauses: append(scClauses, "I-SIM-1"), Where: "deploysim:TestScenarioSweep"},
		spec.Check{ID: "deploysim/broken-fleets-caught", Kind: spec.KindTest, Clauses: []string{"S10.replay-unchanged", "S6.fencing.zombie", "S6.resume.is-migration", "I-SIM-1", "I-SIM-2"},
			Where: "deploysim:TestBrokenFleetsCaught"},
		spec.Check{ID: "deploysim/deterministic", Kind: spec.KindTest, Clauses: []string{"I-SIM-1"}, Where: "deploysim:TestSeedReproducesRun"},
		spec.Check{ID: "deploysim/reference-settles", Kind: spec.KindTest, Clauses: []string{"I-SIM-10"}, Where: "deploysim:TestReferenceSettlesEveryExecution"},
		spec.Check{ID: "deploysim/shards-merge", Kind: spec.KindTest, Clauses: []string{"S10.fitness.gated", "I-SHARD-1", "I-SHARD-2", "I-SHARD-3"}, Where: "deploysim:TestShardsMergeIntoOneRun"},
	)
	return out
}
