package spec

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Level is the RFC 2119 strength of a clause.
type Level string

const (
	Must    Level = "MUST"
	MustNot Level = "MUST NOT"
	Should  Level = "SHOULD"
	May     Level = "MAY"
)

// Levels lists the levels in reporting order.
func Levels() []Level { return []Level{Must, MustNot, Should, May} }

// Source says where a clause comes from.
type Source string

const (
	SourceSpec           Source = "spec"           // the kernel specification
	SourceADR            Source = "adr"            // ADR 0026
	SourceInterpretation Source = "interpretation" // our decision where the spec is silent (docs/interpretations.md)
)

// Clause is one normative statement.
type Clause struct {
	ID      string `json:"id"`
	Section string `json:"section"`
	Level   Level  `json:"level"`
	Source  Source `json:"source"`
	Summary string `json:"summary"`
	// Form says whether the spec sentence carries an RFC 2119 keyword or is a declarative
	// sentence read as normative (set from the table in form.go).
	Form Form `json:"form"`
	// Note, on interpretation clauses, says what the spec leaves open and what we decided and why.
	Note string `json:"note,omitempty"`
	// Tier, on interpretation clauses, says how the decision binds a target (tier.go); Rests, on a
	// consequence, cites the spec or ADR words it follows from.
	Tier  Tier   `json:"tier,omitempty"`
	Rests string `json:"rests,omitempty"`
	// Options, on a choice, lists the behaviours the spec leaves open, ours first: a target whose
	// behaviour is one of them keeps the spec (what a check holds it to is "one of the options",
	// required), and only the first is what this project recommends (recommended). A behaviour
	// that is none of them breaks a spec clause and is not a choice (DESIGN §7.1).
	Options []string `json:"options,omitempty"`
}

// Clauses returns every registered clause, in registry order. The result is a fresh slice.
func Clauses() []Clause {
	var out []Clause
	for _, part := range parts() {
		out = append(out, part...)
	}
	for i := range out {
		out[i].Form = formOf(out[i])
	}
	return out
}

// Lookup returns the clause with the given id.
func Lookup(id string) (Clause, bool) {
	c, ok := lookupIndex()[id]
	return c, ok
}

// lookupIndex is the registry by id, built once: the tables are constant.
var lookupIndex = sync.OnceValue(func() map[string]Clause {
	m := map[string]Clause{}
	for _, c := range Clauses() {
		m[c.ID] = c
	}
	return m
})

// ValidateRegistry reports duplicate ids and malformed clauses.
func ValidateRegistry(cs []Clause) error {
	seen := map[string]bool{}
	var errs []string
	for i, c := range cs {
		switch {
		case c.ID == "":
			errs = append(errs, fmt.Sprintf("clause %d: empty id", i))
		case seen[c.ID]:
			errs = append(errs, fmt.Sprintf("clause %s: duplicate id", c.ID))
		}
		seen[c.ID] = true
		if c.Source == SourceInterpretation && c.Note == "" {
			errs = append(errs, fmt.Sprintf("clause %s: an interpretation needs a note", c.ID))
		}
		if err := validateTier(c); err != nil {
			errs = append(errs, err.Error())
		}
		if c.Section == "" || c.Summary == "" {
			errs = append(errs, fmt.Sprintf("clause %s: section and summary are required", c.ID))
		}
		switch c.Level {
		case Must, MustNot, Should, May:
		default:
			errs = append(errs, fmt.Sprintf("clause %s: unknown level %q", c.ID, c.Level))
		}
		switch c.Source {
		case SourceSpec, SourceADR, SourceInterpretation:
		default:
			errs = append(errs, fmt.Sprintf("clause %s: unknown source %q", c.ID, c.Source))
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("clause registry: %s", strings.Join(errs, "; "))
	}
	return nil
}
