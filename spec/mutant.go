package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Mutant is one deliberately broken implementation, registered as data so that coverage can count
// proofs rather than links: a clause is proven when a registered mutant that violates it is
// rejected by a check linked to it.
//
// Every package that holds broken implementations (stores, folds, kernel hooks, ingress gates,
// emit checkers, bridges, kernels, dispatchers, fleets) exposes `func Mutants() []spec.Mutant`,
// gathered by catalog.Mutants.
type Mutant struct {
	// ID is stable and unique across the project: "<kind>/<seam or area>/<name>",
	// e.g. "store/eventstore/global-anchor".
	ID string `json:"id"`
	// Kind is the family: store, fold, kernel-hook, gate, emit-checker, bridge, kernel,
	// dispatcher, fleet, lifecycle, …
	Kind string `json:"kind"`
	// Defect says what is wrong, in one line.
	Defect string `json:"defect"`
	// Clauses are the clause ids the mutant violates.
	Clauses []string `json:"clauses"`
	// CaughtBy are the check ids (catalog ids or kit check ids) that must reject it.
	CaughtBy []string `json:"caughtBy"`
	// Where is the test that proves the rejection: "<package dir>:<TestName>".
	Where string `json:"where"`
}

// ValidateMutants refuses mutants with an empty or repeated id, no clause, no catching check, or a
// clause id the registry does not know.
func ValidateMutants(ms []Mutant) error {
	known := map[string]bool{}
	for _, c := range Clauses() {
		known[c.ID] = true
	}
	seen := map[string]bool{}
	var errs []string
	for _, m := range ms {
		switch {
		case m.ID == "":
			errs = append(errs, fmt.Sprintf("mutant at %s: empty id", m.Where))
			continue
		case seen[m.ID]:
			errs = append(errs, fmt.Sprintf("mutant %s: duplicate id", m.ID))
		}
		seen[m.ID] = true
		if len(m.Clauses) == 0 {
			errs = append(errs, fmt.Sprintf("mutant %s: names no clause", m.ID))
		}
		if len(m.CaughtBy) == 0 {
			errs = append(errs, fmt.Sprintf("mutant %s: names no check that catches it", m.ID))
		}
		if m.Where == "" {
			errs = append(errs, fmt.Sprintf("mutant %s: names no proving test", m.ID))
		}
		for _, id := range m.Clauses {
			if !known[id] {
				errs = append(errs, fmt.Sprintf("mutant %s: unknown clause %q", m.ID, id))
			}
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("%d mutant error(s): %s", len(errs), strings.Join(errs, "; "))
	}
	return nil
}
