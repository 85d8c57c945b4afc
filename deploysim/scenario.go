package deploysim

import (
	"fmt"
	"slices"
	"strings"
)

// Scenario is a named fleet plan: which profiles and code versions the workers run, how the fleet
// changes during the run, and which faults the seed draws from.
type Scenario struct {
	Name    string
	Doc     string
	Clauses []string
	// Profiles are the event-schema profiles of the first workers, cycled over the workers.
	Profiles []string
	// Replace are the profiles that replace workers one at a time during the run (a rolling
	// upgrade or a rollback), evenly spaced over the run.
	Replace []string
	// Code is the flow-code version of the first workers; UpgradeCode (0 = none) the version the
	// Replace steps deploy; Migrate lets a worker migrate an execution of older code (resumeAs,
	// EXECUTION_MIGRATED) instead of refusing it with a FlowCodeMismatchError.
	Code, UpgradeCode int
	Migrate           bool
	// Fault rates per worker turn, in permille.
	Crash, Pause, StoreFault int
	// Snapshots makes workers save snapshots after their runs.
	Snapshots bool
}

// Scenarios lists every named scenario.
func Scenarios() []Scenario {
	all := []string{"1.20.0", "1.21.0", "1.23.0", "1.24.0", "1.25.0", "1.26.0"}
	return []Scenario{
		{Name: "basic", Doc: "a current fleet with no faults: the throughput baseline",
			Clauses: []string{"S6.dispatch.stateless-workers", "S10.replay-unchanged"}, Profiles: []string{"1.26.0"}, Code: 1},
		{Name: "rolling-upgrade", Doc: "workers replaced one at a time from profile 1.20.0 to 1.26.0 while executions move between old and new workers; snapshots per profile",
			Clauses:  []string{"S6.resume.is-migration", "S10.replay-unchanged", "S4.snapshot.every-k"},
			Profiles: []string{"1.20.0"}, Replace: all[1:], Code: 1, Crash: 30, Snapshots: true},
		{Name: "rollback", Doc: "an upgraded fleet rolled back to older profiles: older workers meet logs and snapshots newer ones wrote",
			Clauses:  []string{"S6.resume.is-migration", "S10.replay-unchanged", "S4.snapshot.every-k"},
			Profiles: []string{"1.26.0"}, Replace: []string{"1.24.0", "1.23.0", "1.21.0", "1.20.0"}, Code: 1, Crash: 30, Snapshots: true},
		{Name: "crash", Doc: "workers crash before an effect, after an effect before its append, after an append (also while parked) and are replaced; packages are re-dispatched",
			Clauses: []string{"S6.resume.is-migration", "S2.execute.served-not-rerun"}, Profiles: []string{"1.26.0", "1.24.0"}, Code: 1, Crash: 150},
		{Name: "zombie", Doc: "workers pause inside an effect or an append; their leases expire or move on; a woken zombie is fenced",
			Clauses: []string{"S6.fencing.zombie", "I-DISPATCH-4"}, Profiles: []string{"1.26.0"}, Code: 1, Pause: 300},
		{Name: "migration", Doc: "flow code v1 replaced by v2: a v2 worker meeting a v1 execution migrates it with EXECUTION_MIGRATED (resumeAs), never driving it with other code",
			Clauses:  []string{"S6.migrated.verdict", "S5.resumeas.transform-may"},
			Profiles: []string{"1.26.0"}, Replace: []string{"1.26.0", "1.26.0", "1.26.0"}, Code: 1, UpgradeCode: 2, Migrate: true, Crash: 30, Snapshots: true},
		{Name: "code-mismatch", Doc: "flow code v1 replaced by v2 with no migration: a v2 worker refuses a v1 execution (FlowCodeMismatchError) and leaves it to a v1 worker",
			Clauses:  []string{"S6.migrated.verdict"},
			Profiles: []string{"1.26.0"}, Replace: []string{"1.26.0"}, Code: 1, UpgradeCode: 2},
		{Name: "store-faults", Doc: "a slow store (virtual delays past the lease), lost connections before and after a write",
			Clauses: []string{"S6.resume.is-migration", "I-STORE-2"}, Profiles: []string{"1.26.0"}, Code: 1, StoreFault: 60},
	}
}

// ScenarioNames lists the scenario names.
func ScenarioNames() []string {
	var out []string
	for _, s := range Scenarios() {
		out = append(out, s.Name)
	}
	return out
}

// LookupScenario finds a scenario by name.
func LookupScenario(name string) (Scenario, error) {
	i := slices.IndexFunc(Scenarios(), func(s Scenario) bool { return s.Name == name })
	if i < 0 {
		return Scenario{}, fmt.Errorf("unknown scenario %q (want one of %s)", name, strings.Join(ScenarioNames(), ", "))
	}
	return Scenarios()[i], nil
}
