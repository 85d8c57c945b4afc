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
	Clause Clause `json:"clause"`
	// Requirement is how the clause binds a target (tier.go): required, or recommended for a
	// choice.
	Requirement Requirement `json:"requirement"`
	Checks      []string    `json:"checks"`
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
	// ByTier counts the interpretations per tier; ByRequirement every clause by how it binds.
	ByTier        map[Tier]Count        `json:"byTier"`
	ByRequirement map[Requirement]Count `json:"byRequirement"`
	Totals        Count                 `json:"totals"`
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
	cov := Coverage{ByLevel: map[Level]Count{}, BySource: map[Source]Count{}, ByTier: map[Tier]Count{}, ByRequirement: map[Requirement]Count{}}
	for _, c := range Clauses() {
		ids := by[c.ID]
		sort.Strings(ids)
		if ids == nil {
			ids = []string{}
		}
		cov.Rows = append(cov.Rows, Row{Clause: c, Requirement: c.Requirement(), Checks: ids})
		add := func(n Count) Count {
			if len(ids) > 0 {
				n.Covered++
			} else {
				n.Uncovered++
			}
			return n
		}
		cov.ByLevel[c.Level] = add(cov.ByLevel[c.Level])
		cov.BySource[c.Source] = add(cov.BySource[c.Source])
		cov.ByRequirement[c.Requirement()] = add(cov.ByRequirement[c.Requirement()])
		if c.Tier != "" {
			cov.ByTier[c.Tier] = add(cov.ByTier[c.Tier])
		}
		cov.Totals = add(cov.Totals)
	}
	return cov
}

// Render prints the matrix as a table followed by the linked counts per level, per tier and per
// requirement.
func (cov Coverage) Render(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLAUSE\tSECTION\tLEVEL\tSOURCE\tTIER\tFORM\tPROVEN\tCHECKS")
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Clause.ID, r.Clause.Section, r.Clause.Level, r.Clause.Source, r.Clause.TierName(), r.Clause.Form, proven, checks)
	}
	row := func(label string, c Count) { fmt.Fprintf(tw, "%s\t%d\t%d\n", label, c.Covered, c.Uncovered) }
	fmt.Fprintln(tw, "\nLEVEL\tLINKED\tUNLINKED")
	for _, l := range Levels() {
		row(string(l), cov.ByLevel[l])
	}
	row("total", cov.Totals)
	fmt.Fprintln(tw, "\nTIER (interpretations)\tLINKED\tUNLINKED")
	for _, t := range Tiers() {
		row(t.Label(), cov.ByTier[t])
	}
	fmt.Fprintln(tw, "\nREQUIREMENT\tLINKED\tUNLINKED")
	for _, q := range Requirements() {
		row(string(q), cov.ByRequirement[q])
	}
	return tw.Flush()
}
