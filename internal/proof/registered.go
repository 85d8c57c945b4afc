package proof

import (
	"sort"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// Registered returns the mutants of ms proven by the test where ("<package dir>:<TestName>"),
// sorted by id, and fails t unless they are exactly the mutants the test can build (built, their
// ids): a registered mutant with no builder would never be tried, a builder with no registration
// would prove nothing coverage can count.
func Registered(t testing.TB, ms []spec.Mutant, where string, built []string) []spec.Mutant {
	t.Helper()
	have := map[string]bool{}
	for _, id := range built {
		have[id] = true
	}
	var out []spec.Mutant
	reg := map[string]bool{}
	for _, m := range ms {
		if m.Where != where {
			continue
		}
		reg[m.ID] = true
		if !have[m.ID] {
			t.Errorf("mutant %s is registered as proven by %s, which cannot build it", m.ID, where)
			continue
		}
		out = append(out, m)
	}
	for _, id := range built {
		if !reg[id] {
			t.Errorf("%s builds mutant %s, which no Mutants() registers with Where %q", where, id, where)
		}
	}
	if len(out) == 0 {
		t.Errorf("no mutant is registered as proven by %s", where)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
