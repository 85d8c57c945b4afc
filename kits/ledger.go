package kits

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// ExpectedFailure is one entry of a known-failures ledger (DESIGN §6): a check a store author knows
// fails, why, and optionally until when the entry holds.
type ExpectedFailure struct {
	CheckID string     `json:"checkId"`
	Reason  string     `json:"reason"`
	Expires *time.Time `json:"expires,omitempty"`
}

// ReadLedger reads a JSON array of ExpectedFailure. Entries without a check id or reason, and
// duplicate ids, are refused with an error naming the entry.
func ReadLedger(r io.Reader) ([]ExpectedFailure, error) {
	var l []ExpectedFailure
	d := json.NewDecoder(r)
	d.DisallowUnknownFields()
	if err := d.Decode(&l); err != nil {
		return nil, fmt.Errorf("expected failures: %w", err)
	}
	seen := map[string]bool{}
	for i, e := range l {
		switch {
		case e.CheckID == "":
			return nil, fmt.Errorf("expected failures: entry %d: checkId is empty", i)
		case e.Reason == "":
			return nil, fmt.Errorf("expected failures: entry %d (%s): reason is empty", i, e.CheckID)
		case seen[e.CheckID]:
			return nil, fmt.Errorf("expected failures: entry %d: check %s listed twice", i, e.CheckID)
		}
		seen[e.CheckID] = true
	}
	return l, nil
}

// LedgerVerdict is what a ledger makes of a run.
type LedgerVerdict struct {
	// Unexpected are failures and unknowns the ledger does not list (or lists with an expiry before now).
	Unexpected []Result
	// Stale are listed checks that did not fail (they pass or were skipped): the ledger must be kept true.
	Stale []ExpectedFailure
	// Expired are listed entries whose expiry is before now.
	Expired []ExpectedFailure
}

// OK reports whether the run is acceptable under the ledger.
func (v LedgerVerdict) OK() bool { return len(v.Unexpected) == 0 && len(v.Stale) == 0 }

// ApplyLedger judges results against a ledger at time now: an unlisted failure fails the run, and so
// does a listed check that now passes.
func ApplyLedger(results []Result, ledger []ExpectedFailure, now time.Time) LedgerVerdict {
	live := map[string]ExpectedFailure{}
	var v LedgerVerdict
	for _, e := range ledger {
		if e.Expires != nil && e.Expires.Before(now) {
			v.Expired = append(v.Expired, e)
			continue
		}
		live[e.CheckID] = e
	}
	failed := map[string]bool{}
	for _, r := range results {
		if r.Verdict != Fail && r.Verdict != Unknown {
			continue
		}
		failed[r.CheckID] = true
		if _, ok := live[r.CheckID]; !ok {
			v.Unexpected = append(v.Unexpected, r)
		}
	}
	ran := map[string]bool{}
	for _, r := range results {
		ran[r.CheckID] = true
	}
	for _, e := range ledger {
		if _, ok := live[e.CheckID]; ok && ran[e.CheckID] && !failed[e.CheckID] {
			v.Stale = append(v.Stale, e)
		}
	}
	return v
}
