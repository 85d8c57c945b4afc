package spec

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Row is one clause with the checks that enforce it.
type Row struct {
	Clause Clause   `json:"clause"`
	Checks []string `json:"checks"`
	// Proven is nil when no proof records were given (not measured); ProvenBy names each
	// "<mutant> by <check>" kill that proves the clause (see Coverage.Prove).
	Proven   *bool    `json:"proven"`
	ProvenBy []string `json:"provenBy,omitempty"`
}

// Count is a covered/uncovered tally.
type Count struct {
	Covered   int `json:"covered"`
	Uncovered int `json:"uncovered"`
}

// Coverage is the clause × check matrix.
type Coverage struct {
	Rows     []Row            `json:"rows"`
	ByLevel  map[Level]Count  `json:"byLevel"`
	BySource map[Source]Count `json:"bySource"`
	Totals   Count            `json:"totals"`
	// Proof is nil until Prove is given the proof records of a run.
	Proof *Proof `json:"proof"`
}

// ComputeCoverage builds the matrix of every registered clause against checks. Checks naming
// unknown clauses are ignored here; Validate reports them.
func ComputeCoverage(checks []Check) Coverage {
	by := map[string][]string{}
	for _, ch := range checks {
		seen := map[string]bool{}
		for _, id := range ch.Clauses {
			if !seen[id] {
				seen[id] = true
				by[id] = append(by[id], ch.ID)
			}
		}
	}
	cov := Coverage{ByLevel: map[Level]Count{}, BySource: map[Source]Count{}}
	for _, c := range Clauses() {
		ids := by[c.ID]
		sort.Strings(ids)
		if ids == nil {
			ids = []string{}
		}
		cov.Rows = append(cov.Rows, Row{Clause: c, Checks: ids})
		l, s := cov.ByLevel[c.Level], cov.BySource[c.Source]
		if len(ids) > 0 {
			l.Covered++
			s.Covered++
			cov.Totals.Covered++
		} else {
			l.Uncovered++
			s.Uncovered++
			cov.Totals.Uncovered++
		}
		cov.ByLevel[c.Level], cov.BySource[c.Source] = l, s
	}
	return cov
}

// Render prints the matrix as a table followed by the per-level counts.
func (cov Coverage) Render(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLAUSE\tSECTION\tLEVEL\tSOURCE\tFORM\tPROVEN\tCHECKS")
	for _, r := range cov.Rows {
		checks := "-"
		if len(r.Checks) > 0 {
			checks = strings.Join(r.Checks, ", ")
		}
		proven := "not measured"
		switch {
		case r.Proven == nil:
		case *r.Proven:
			proven = "proven"
		default:
			proven = "no"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Clause.ID, r.Clause.Section, r.Clause.Level, r.Clause.Source, r.Clause.Form, proven, checks)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "LEVEL\tLINKED\tUNLINKED")
	for _, l := range Levels() {
		c := cov.ByLevel[l]
		fmt.Fprintf(tw, "%s\t%d\t%d\n", l, c.Covered, c.Uncovered)
	}
	fmt.Fprintf(tw, "total\t%d\t%d\n", cov.Totals.Covered, cov.Totals.Uncovered)
	return tw.Flush()
}
