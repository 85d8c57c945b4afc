package broken

import "testing"

// Every clause entry names a broken store that exists: a renamed store cannot leave a stale entry.
func TestViolatesNamesExistingStores(t *testing.T) {
	have := map[string]bool{}
	for _, m := range Mutants() {
		have[m.ID] = true
	}
	for key := range violates {
		if !have["store/"+key] {
			t.Errorf("violates[%q] names no broken store", key)
		}
	}
}
