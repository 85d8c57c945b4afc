package fitness

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/spec"
)

// LedgerEntry is a MUST clause reviewed as acceptably uncovered, and why.
type LedgerEntry struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

//go:embed coverage-ledger.json
var coverageLedgerJSON []byte

// CoverageLedger returns the reviewed ledger of uncovered MUST clauses (fitness/coverage-ledger.json).
func CoverageLedger() ([]LedgerEntry, error) {
	var l []LedgerEntry
	if err := json.Unmarshal(coverageLedgerJSON, &l); err != nil {
		return nil, fmt.Errorf("fitness/coverage-ledger.json: want [{\"id\": clause id, \"reason\": text}]: %w", err)
	}
	for i, e := range l {
		if e.ID == "" || e.Reason == "" {
			return nil, fmt.Errorf("fitness/coverage-ledger.json: entry %d: id and reason are required", i)
		}
	}
	return l, nil
}

// runCoverage fails when a MUST or MUST NOT clause has no check and is not in the ledger, or when
// a ledger entry is covered now (the ledger must be kept true).
func runCoverage(o Options) Result {
	cov := spec.ComputeCoverage(o.Checks)
	ledger := map[string]string{}
	for _, e := range o.CoverageLedger {
		ledger[e.ID] = e.Reason
	}
	var unlisted, stale []string
	uncoveredMust := 0
	for _, r := range cov.Rows {
		if r.Clause.Level != spec.Must && r.Clause.Level != spec.MustNot {
			continue
		}
		_, listed := ledger[r.Clause.ID]
		delete(ledger, r.Clause.ID)
		switch {
		case len(r.Checks) == 0 && !listed:
			unlisted = append(unlisted, r.Clause.ID)
		case len(r.Checks) == 0:
			uncoveredMust++
		case listed:
			stale = append(stale, r.Clause.ID)
		}
	}
	for id := range ledger {
		stale = append(stale, id+" (not a MUST clause)")
	}
	sort.Strings(stale)
	figure := fmt.Sprintf("%d uncovered MUST clauses, %d in the ledger", len(unlisted)+uncoveredMust, uncoveredMust)
	var problems []string
	if len(unlisted) > 0 {
		problems = append(problems, "uncovered and not in the ledger: "+strings.Join(unlisted, ", "))
	}
	if len(stale) > 0 {
		problems = append(problems, "in the ledger but covered now (remove them): "+strings.Join(stale, ", "))
	}
	if len(problems) > 0 {
		return Result{Verdict: Fail, Figure: figure, Detail: strings.Join(problems, "; ")}
	}
	return Result{Verdict: Pass, Figure: figure}
}
