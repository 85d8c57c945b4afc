package realfleet

import (
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spec"
)

// BrokenWorker is a worker with one defect, planted in every worker of a real fleet
// (`deploysim --real --broken NAME`): the invariant meant to catch it and the clauses it violates.
type BrokenWorker struct {
	Name    string
	Defect  string
	Hooks   func(*kernel.Hooks)
	Catch   string
	Clauses []string
}

func brokenWorkers() []BrokenWorker {
	return []BrokenWorker{
		{"rerun-completed-effect", "a worker that replays an execution re-runs the effect of a step whose completion is logged",
			func(h *kernel.Hooks) { h.RerunCompletedSteps = true }, "sim/served-not-rerun", []string{"S2.execute.served-not-rerun"}},
	}
}

// BrokenWorkers lists the broken workers a real fleet can run.
func BrokenWorkers() []BrokenWorker { return brokenWorkers() }

// LookupBroken returns the broken worker called name, or an error listing the known ones.
func LookupBroken(name string) (BrokenWorker, error) {
	var names []string
	for _, b := range brokenWorkers() {
		if b.Name == name {
			return b, nil
		}
		names = append(names, b.Name)
	}
	return BrokenWorker{}, fmt.Errorf("unknown broken worker %q (want one of %s)", name, strings.Join(names, ", "))
}

// Mutants registers every broken worker: each is proven rejected by a real fleet on PostgreSQL.
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	for _, b := range brokenWorkers() {
		out = append(out, spec.Mutant{ID: "fleet/real/" + b.Name, Kind: "fleet", Defect: b.Defect, Clauses: b.Clauses,
			CaughtBy: []string{b.Catch}, Where: "cmd/loom-conform-full:TestDeploysimRealBrokenWorker"})
	}
	return out
}
