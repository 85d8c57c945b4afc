package spec

import (
	"fmt"
	"sort"
	"strings"
)

// CheckKind says what sort of thing enforces clauses.
type CheckKind string

const (
	KindTest     CheckKind = "test"     // a Go test function; Where is "<package dir>:<TestName>"
	KindProperty CheckKind = "property" // a rapid property; Where as for tests
	KindFuzz     CheckKind = "fuzz"     // a go test -fuzz target; Where as for tests
	KindKit      CheckKind = "kit"      // a conformance-kit check; Where is the kit name
	KindVector   CheckKind = "vector"   // a fold vector; Where is its file
)

// Check is anything that enforces clauses: its stable id, kind, the clause ids it enforces and
// where it lives.
type Check struct {
	ID      string    `json:"id"`
	Kind    CheckKind `json:"kind"`
	Clauses []string  `json:"clauses"`
	Where   string    `json:"where"`
}

// Validate refuses checks that name unknown clauses, name none, or repeat an id.
func Validate(checks []Check) error {
	known := map[string]bool{}
	for _, c := range Clauses() {
		known[c.ID] = true
	}
	seen := map[string]bool{}
	var errs []string
	for _, ch := range checks {
		if ch.ID == "" {
			errs = append(errs, fmt.Sprintf("check at %s: empty id", ch.Where))
			continue
		}
		if seen[ch.ID] {
			errs = append(errs, fmt.Sprintf("check %s: duplicate id", ch.ID))
		}
		seen[ch.ID] = true
		if len(ch.Clauses) == 0 {
			errs = append(errs, fmt.Sprintf("check %s: names no clause", ch.ID))
		}
		for _, id := range ch.Clauses {
			if !known[id] {
				errs = append(errs, fmt.Sprintf("check %s: unknown clause %q", ch.ID, id))
			}
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("%d check error(s): %s", len(errs), strings.Join(errs, "; "))
	}
	return nil
}
