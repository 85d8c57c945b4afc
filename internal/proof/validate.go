package proof

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/spec"
)

// Screen keeps the records that prove what they claim and says why it refused each other one: a
// record must come from this build (Build, so a stale run or a record written by hand for another
// tree counts nothing), name a registered mutant and a check among the checks that mutant is
// registered to be caught by (spec.Mutant.CaughtBy), and carry as evidence that check's own
// failure, which in the project's failure grammar begins with the check id. Records of
// unregistered mutants are kept: coverage reports them as unknown kills.
func Screen(recs []Record, build string, mutants []spec.Mutant) (kept []Record, refused []string) {
	caught := map[string]map[string]bool{}
	for _, m := range mutants {
		caught[m.ID] = map[string]bool{}
		for _, c := range m.CaughtBy {
			caught[m.ID][c] = true
		}
	}
	builds := map[string]int{}
	for _, r := range recs {
		switch by, known := caught[r.Mutant]; {
		case r.Build != build:
			builds[r.Build]++
		case known && !by[r.Check]:
			refused = append(refused, fmt.Sprintf("%s by %s (test %s): %s is not among the checks the mutant is registered to be caught by", r.Mutant, r.Check, r.Test, r.Check))
		case !EvidenceOf(r.Check, r.Evidence):
			refused = append(refused, fmt.Sprintf("%s by %s (test %s): the evidence %q is not that check's failure (it begins with the check id)", r.Mutant, r.Check, r.Test, clip(r.Evidence, 80)))
		default:
			kept = append(kept, r)
		}
	}
	var other []string
	for b, n := range builds {
		if b == "" {
			b = "no build"
		}
		other = append(other, fmt.Sprintf("%d record(s) of %s", n, b))
	}
	sort.Strings(other)
	if len(other) > 0 {
		refused = append([]string{fmt.Sprintf("%s, not this tree's %s: a test run of other code (run make test again)", strings.Join(other, ", "), build)}, refused...)
	}
	return kept, refused
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// Load reads the records of dir and screens them (Screen) against the build of the module at
// root and the registered mutants.
func Load(dir, root string, mutants []spec.Mutant) (kept []Record, refused []string, err error) {
	recs, err := Read(dir)
	if err != nil {
		return nil, nil, err
	}
	mod, err := ModuleRoot(root)
	if err != nil {
		return nil, nil, err
	}
	build, err := BuildID(mod)
	if err != nil {
		return nil, nil, fmt.Errorf("the build of %s: %w", mod, err)
	}
	kept, refused = Screen(recs, build, mutants)
	return kept, refused, nil
}
