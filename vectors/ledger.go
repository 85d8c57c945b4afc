package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Ledger lists vectors known to fail, each with the reason (--expected-failures FILE). The
// ledger must be kept true: a run fails on an unlisted failure and on a listed vector that passes.
type Ledger struct {
	Entries []LedgerEntry
}

// LedgerEntry is one known failure.
type LedgerEntry struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// ParseLedger reads a ledger file: a JSON array of {"id", "reason"}. file names it in errors.
func ParseLedger(data []byte, file string) (Ledger, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var l Ledger
	if err := dec.Decode(&l.Entries); err != nil {
		return Ledger{}, fmt.Errorf("%s: want a JSON array of {\"id\", \"reason\"}: %w", file, err)
	}
	seen := map[string]int{}
	var errs []string
	for i, e := range l.Entries {
		switch {
		case e.ID == "":
			errs = append(errs, fmt.Sprintf("entry %d: id missing", i))
		case strings.TrimSpace(e.Reason) == "":
			errs = append(errs, fmt.Sprintf("entry %d (%s): reason missing", i, e.ID))
		}
		if j, dup := seen[e.ID]; dup && e.ID != "" {
			errs = append(errs, fmt.Sprintf("entry %d: id %q already listed at entry %d", i, e.ID, j))
		}
		seen[e.ID] = i
	}
	if len(errs) > 0 {
		return Ledger{}, fmt.Errorf("%s: %s", file, strings.Join(errs, "; "))
	}
	return l, nil
}

// reason returns the reason a vector is listed, if it is.
func (l Ledger) reason(id string) (string, bool) {
	for _, e := range l.Entries {
		if e.ID == id {
			return e.Reason, true
		}
	}
	return "", false
}
