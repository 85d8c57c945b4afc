package spec

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Kill is one observed rejection, read from the proof records of a run (internal/proof): check
// Check rejected mutant Mutant.
type Kill struct {
	Mutant string `json:"mutant"`
	Check  string `json:"check"`
}

// Tally counts clauses, those linked to a check, and those proven by a recorded kill.
type Tally struct {
	Clauses int `json:"clauses"`
	Linked  int `json:"linked"`
	Proven  int `json:"proven"`
}

// Proof is the proven half of the coverage report, present only when proof records were given.
type Proof struct {
	Mutants int      `json:"mutants"`           // registered mutants
	Killed  int      `json:"killed"`            // registered mutants with at least one recorded kill
	Records int      `json:"records"`           // kills read
	Unknown []string `json:"unknown,omitempty"` // kills naming a mutant no Mutants() registers
	// Refused lists the records the reader refused before Prove saw them (of another build, naming
	// a check the mutant is not registered to be caught by, or evidence that is not the check's
	// own failure), each with why; set by the caller.
	Refused  []string `json:"refused,omitempty"`
	Survived []string `json:"survived,omitempty"` // registered mutants with no recorded kill
	// Pairs counts the registered (mutant, clause) pairs; UnprovenPairs lists "<mutant> × <clause>"
	// for each pair of a killed mutant that no recorded kill by a check linked to the clause backs
	// (I-COV-4): the mutant was caught, but not by a check about that clause.
	Pairs         int              `json:"pairs"`
	UnprovenPairs []string         `json:"unprovenPairs,omitempty"`
	ByLevel       map[Level]Tally  `json:"byLevel"`
	BySource      map[Source]Tally `json:"bySource"`
	ByForm        map[Form]Tally   `json:"byForm"`
	// ByTier tallies the interpretations per tier, ByRequirement every clause by how it binds.
	ByTier        map[Tier]Tally        `json:"byTier"`
	ByRequirement map[Requirement]Tally `json:"byRequirement"`
	// KeywordMust is the spec MUST and MUST NOT clauses whose sentence carries the RFC 2119 keyword
	// (form keyword), the part of SpecMust no reading of ours put there.
	KeywordMust Tally `json:"keywordMust"`
	// SingleMutant lists "<clause> (<mutant>)" for each proven clause whose proof rests on the kills
	// of one mutant only: one broken implementation away from unproven.
	SingleMutant []string `json:"singleMutant"`
	// SpecMust is the spec-sourced MUST and MUST NOT clauses; SpecMustUnproven lists those not
	// proven, each with why (no mutant registered for it, or its mutants' kills were not by a
	// check linked to it).
	SpecMust         Tally    `json:"specMust"`
	SpecMustUnproven []string `json:"specMustUnproven"`
}

// Percent is Proven over Clauses, in percent (0 when there are no clauses).
func (t Tally) Percent() float64 {
	if t.Clauses == 0 {
		return 0
	}
	return 100 * float64(t.Proven) / float64(t.Clauses)
}

// Prove marks each row proven when some registered mutant violating its clause was rejected, in
// the recorded run, by a check linked to that clause; ProvenBy names "<mutant> by <check>". A kill
// credits only the clauses of the mutant its check is linked to, never the mutant's other clauses
// (I-COV-4); the pairs it leaves unbacked are listed in Proof.UnprovenPairs.
// Kills naming an unregistered mutant prove nothing and are listed in Proof.Unknown. Without a
// call to Prove, Coverage.Proof is nil and the report says "proven: not measured".
func (cov *Coverage) Prove(mutants []Mutant, kills []Kill) {
	violating := map[string]map[string]bool{} // mutant -> clauses it violates
	for _, m := range mutants {
		violating[m.ID] = map[string]bool{}
		for _, c := range m.Clauses {
			violating[m.ID][c] = true
		}
	}
	p := &Proof{Mutants: len(mutants), Records: len(kills), ByLevel: map[Level]Tally{}, BySource: map[Source]Tally{},
		ByForm: map[Form]Tally{}, ByTier: map[Tier]Tally{}, ByRequirement: map[Requirement]Tally{}, SingleMutant: []string{}}
	killed := map[string]bool{}
	unknown := map[string]bool{}
	by := map[string]map[string]bool{} // clause -> "mutant by check"
	for _, k := range kills {
		v, ok := violating[k.Mutant]
		if !ok {
			unknown[k.Mutant] = true
			continue
		}
		killed[k.Mutant] = true
		for c := range v {
			if by[c] == nil {
				by[c] = map[string]bool{}
			}
			by[c][k.Mutant+" by "+k.Check] = true
		}
	}
	p.Killed = len(killed)
	for _, m := range mutants {
		if !killed[m.ID] {
			p.Survived = append(p.Survived, m.ID)
		}
	}
	for id := range unknown {
		p.Unknown = append(p.Unknown, id)
	}
	sort.Strings(p.Unknown)
	hasMutant := map[string]bool{}
	for _, m := range mutants {
		for _, c := range m.Clauses {
			hasMutant[c] = true
		}
	}
	for i := range cov.Rows {
		r := &cov.Rows[i]
		linked := map[string]bool{}
		for _, ch := range r.Checks {
			linked[ch] = true
		}
		r.ProvenBy = []string{}
		for pair := range by[r.Clause.ID] {
			if linked[pair[strings.Index(pair, " by ")+4:]] {
				r.ProvenBy = append(r.ProvenBy, pair)
			}
		}
		sort.Strings(r.ProvenBy)
		proven := len(r.ProvenBy) > 0
		r.Proven = &proven
		add := func(t Tally) Tally {
			t.Clauses++
			if len(r.Checks) > 0 {
				t.Linked++
			}
			if proven {
				t.Proven++
			}
			return t
		}
		c := r.Clause
		p.ByLevel[c.Level] = add(p.ByLevel[c.Level])
		p.BySource[c.Source] = add(p.BySource[c.Source])
		p.ByForm[c.Form] = add(p.ByForm[c.Form])
		p.ByRequirement[r.Requirement] = add(p.ByRequirement[r.Requirement])
		if c.Tier != "" {
			p.ByTier[c.Tier] = add(p.ByTier[c.Tier])
		}
		if ms := provingMutants(r.ProvenBy); len(ms) == 1 {
			p.SingleMutant = append(p.SingleMutant, c.ID+" ("+ms[0]+")")
		}
		if c.Source == SourceSpec && (c.Level == Must || c.Level == MustNot) {
			p.SpecMust = add(p.SpecMust)
			if c.Form == FormKeyword {
				p.KeywordMust = add(p.KeywordMust)
			}
			if !proven {
				why := "no registered mutant violates it"
				switch {
				case len(r.Checks) == 0:
					why = "no check is linked to it"
				case hasMutant[c.ID] && len(by[c.ID]) > 0:
					why = "its mutants were rejected only by checks not linked to it"
				case hasMutant[c.ID]:
					why = "no kill of its mutants was recorded in this run"
				}
				if r, ok := reviewedUnproven[c.ID]; ok {
					why += " (reviewed: " + r + ")"
				}
				p.SpecMustUnproven = append(p.SpecMustUnproven, c.ID+": "+why)
			}
		}
	}
	backed := map[string]bool{} // "mutant × clause": a row's ProvenBy is its backed pairs
	for _, r := range cov.Rows {
		for _, pair := range r.ProvenBy {
			backed[pair[:strings.Index(pair, " by ")]+" × "+r.Clause.ID] = true
		}
	}
	for _, m := range mutants {
		p.Pairs += len(m.Clauses)
		for _, c := range m.Clauses {
			if killed[m.ID] && !backed[m.ID+" × "+c] {
				p.UnprovenPairs = append(p.UnprovenPairs, m.ID+" × "+c)
			}
		}
	}
	sort.Strings(p.UnprovenPairs)
	cov.Proof = p
}

// provingMutants is the distinct mutants of "<mutant> by <check>" pairs, sorted.
func provingMutants(provenBy []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, pair := range provenBy {
		m := pair[:strings.Index(pair, " by ")]
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// RenderProof prints the proven summary: tallies by level, source, form, tier and requirement, the
// spec-sourced MUST percentage (and its keyword part), the unproven spec MUST clauses and the
// proven clauses resting on a single mutant. Without proof records it says so.
func (cov Coverage) RenderProof(w io.Writer) error {
	if cov.Proof == nil {
		_, err := fmt.Fprintln(w, "proven: not measured (no proof records given: run `make test`, or pass --proofs DIR written by a test run with LOOM_CONFORM_PROOFS=DIR)")
		return err
	}
	p := cov.Proof
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "mutants: %d registered, %d killed in the recorded run (%d proof records)\n", p.Mutants, p.Killed, p.Records)
	if len(p.Survived) > 0 {
		fmt.Fprintf(tw, "registered mutants with no recorded kill (%d): %s\n", len(p.Survived), strings.Join(p.Survived, ", "))
	}
	fmt.Fprintf(tw, "(mutant, clause) pairs: %d registered, %d of killed mutants not backed by a kill by a check linked to the clause\n", p.Pairs, len(p.UnprovenPairs))
	if len(p.UnprovenPairs) > 0 {
		fmt.Fprintf(tw, "unbacked pairs: %s\n", strings.Join(p.UnprovenPairs, ", "))
	}
	if len(p.Unknown) > 0 {
		fmt.Fprintf(tw, "records naming unregistered mutants (ignored): %s\n", strings.Join(p.Unknown, ", "))
	}
	if len(p.Refused) > 0 {
		fmt.Fprintf(tw, "proof records refused (%d):\n  %s\n", len(p.Refused), strings.Join(p.Refused, "\n  "))
	}
	fmt.Fprintln(tw)
	row := func(name string, t Tally) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f%%\n", name, t.Clauses, t.Linked, t.Proven, t.Percent())
	}
	fmt.Fprintln(tw, "LEVEL\tCLAUSES\tLINKED\tPROVEN\tPROVEN %")
	for _, l := range Levels() {
		row(string(l), p.ByLevel[l])
	}
	fmt.Fprintln(tw, "\nSOURCE\tCLAUSES\tLINKED\tPROVEN\tPROVEN %")
	for _, s := range []Source{SourceSpec, SourceADR, SourceInterpretation} {
		row(string(s), p.BySource[s])
	}
	fmt.Fprintln(tw, "\nFORM\tCLAUSES\tLINKED\tPROVEN\tPROVEN %")
	for _, f := range Forms() {
		row(string(f), p.ByForm[f])
	}
	fmt.Fprintln(tw, "\nTIER (interpretations)\tCLAUSES\tLINKED\tPROVEN\tPROVEN %")
	for _, t := range Tiers() {
		row(t.Label(), p.ByTier[t])
	}
	fmt.Fprintln(tw, "\nREQUIREMENT\tCLAUSES\tLINKED\tPROVEN\tPROVEN %")
	for _, q := range Requirements() {
		row(string(q), p.ByRequirement[q])
	}
	fmt.Fprintln(tw)
	row("spec MUST/MUST NOT", p.SpecMust)
	row("  with the RFC 2119 keyword", p.KeywordMust)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(p.SpecMustUnproven) > 0 {
		fmt.Fprintf(w, "\nunproven spec MUST/MUST NOT clauses (%d):\n", len(p.SpecMustUnproven))
		for _, u := range p.SpecMustUnproven {
			fmt.Fprintf(w, "  %s\n", u)
		}
	}
	var proven int
	for _, t := range p.ByLevel {
		proven += t.Proven
	}
	fmt.Fprintf(w, "\nproven clauses resting on a single mutant (%d of %d proven):\n", len(p.SingleMutant), proven)
	for _, s := range p.SingleMutant {
		fmt.Fprintf(w, "  %s\n", s)
	}
	return nil
}
