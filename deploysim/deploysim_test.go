package deploysim_test

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/spec"
)

// sweepSeeds is the bounded seed sweep per scenario that `go test` runs; LOOM_DEPLOYSIM_SEEDS
// widens it (make deploysim SEEDS=N).
func sweepSeeds(t *testing.T) int {
	if s := os.Getenv("LOOM_DEPLOYSIM_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("LOOM_DEPLOYSIM_SEEDS=%q: want a positive integer", s)
		}
		return n
	}
	if testing.Short() {
		return 3
	}
	return 12
}

// Reference: spec §10 — deploy simulation proves replay unchanged across fleets; every invariant
// holds for every scenario over a seed sweep (I-SIM-1, I-SIM-2).
func TestScenarioSweep(t *testing.T) {
	n := sweepSeeds(t)
	for _, sc := range deploysim.Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			var events, crashes, pauses, fenced, mismatches, migrations int
			for seed := int64(1); seed <= int64(n); seed++ {
				res := deploysim.Run(deploysim.Config{Scenario: sc.Name, Seed: seed})
				if res.Err != "" {
					t.Fatal(res.Err)
				}
				for _, v := range res.Violations {
					t.Errorf("seed %d: %v", seed, v)
				}
				events += res.Events
				crashes += res.Crashes
				pauses += res.Pauses
				fenced += res.Fenced
				mismatches += res.Mismatches
				migrations += res.Migrations
			}
			t.Logf("%d seeds: %d events, %d crashes, %d pauses, %d fenced appends, %d code mismatches, %d migrations", n, events, crashes, pauses, fenced, mismatches, migrations)
			// The sweep must exercise what the scenario is about, or it proves nothing.
			switch sc.Name {
			case "crash":
				if crashes == 0 {
					t.Errorf("crash: no worker crashed in %d seeds", n)
				}
			case "zombie":
				if pauses == 0 || fenced == 0 {
					t.Errorf("zombie: %d pauses, %d fenced appends in %d seeds; want both", pauses, fenced, n)
				}
			case "migration":
				if migrations == 0 {
					t.Errorf("migration: no execution migrated in %d seeds", n)
				}
			case "code-mismatch":
				if mismatches == 0 {
					t.Errorf("code-mismatch: no FlowCodeMismatchError in %d seeds", n)
				}
			}
		})
	}
}

// Reference: I-SIM-1 — one seed reproduces the whole run.
func TestSeedReproducesRun(t *testing.T) {
	for _, sc := range []string{"crash", "zombie", "rolling-upgrade"} {
		a := deploysim.Run(deploysim.Config{Scenario: sc, Seed: 7})
		b := deploysim.Run(deploysim.Config{Scenario: sc, Seed: 7})
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s seed 7 ran twice: %+v and %+v, want identical", sc, a, b)
		}
		if !strings.Contains(a.Repro, "--scenario "+sc+" --seed 7") {
			t.Errorf("Repro = %q, want the one-line command", a.Repro)
		}
	}
}

// Reference: spec §6, §10 — every broken fleet is caught by the invariant meant for it, with a
// reproduce line.
func TestBrokenFleetsCaught(t *testing.T) {
	fleets := deploysim.BrokenFleets()
	if len(fleets) < 8 {
		t.Fatalf("%d broken fleets, want at least 8", len(fleets))
	}
	for _, b := range fleets {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			for seed := int64(1); seed <= 40; seed++ {
				res := deploysim.Run(deploysim.Config{Scenario: b.Scenario, Seed: seed, Broken: b.Broken})
				for _, v := range res.Violations {
					if v.Invariant == b.Catch {
						if !strings.Contains(v.Error(), "reproduce: ") {
							t.Errorf("violation %q has no reproduce line", v.Error())
						}
						proof.Rejected(t, "fleet/deploysim/"+b.Name, b.Catch, v.Error())
						t.Logf("caught at seed %d: %s", seed, v.Error())
						return
					}
				}
			}
			t.Fatalf("%s (%s): invariant %s never failed in 40 seeds of %s", b.Name, b.Defect, b.Catch, b.Scenario)
		})
	}
}

func TestMutantsAndChecksValid(t *testing.T) {
	if err := spec.ValidateMutants(deploysim.Mutants()); err != nil {
		t.Fatal(err)
	}
	if err := spec.Validate(deploysim.Checks()); err != nil {
		t.Fatal(err)
	}
}

// The embedded flows decode as flow scripts and bind to the fakes' names.
func TestFlowScriptsDecode(t *testing.T) {
	res := deploysim.Run(deploysim.Config{Scenario: "basic", Seed: 1})
	if !res.OK() || res.Events == 0 {
		t.Fatalf("basic seed 1 = %+v, want a clean run over the embedded flow scripts", res)
	}
}

// Reference: I-SIM-10 — the single-worker reference a real fleet is compared with settles every
// execution, however many: its settling is bounded by the work (steps per execution), not by a
// fixed count that a single worker with hundreds of executions outran.
func TestReferenceSettlesEveryExecution(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 600
	}
	ref := deploysim.Reference(n/2, n-n/2, 1)
	if len(ref) != n {
		t.Fatalf("Reference(%d executions) = %d states", n, len(ref))
	}
	unsettled := map[string]int{}
	for _, st := range ref {
		if st.Status != "completed" {
			unsettled[st.Status]++
		}
	}
	if len(unsettled) > 0 {
		t.Fatalf("deploysim/reference-settles [I-SIM-10]: Reference(%d executions) = unsettled by status %v, want every execution completed", n, unsettled)
	}
}
