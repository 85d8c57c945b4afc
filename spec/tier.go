package spec

import (
	"fmt"
	"regexp"
)

// Tier says how an interpretation clause binds a target (DESIGN §7.1). Spec and ADR clauses have no
// tier: they are required by their source.
type Tier string

const (
	// TierProtocol: the clause defines this harness's own protocol (the store bridge, the kernel
	// wire carrier, the vector protocol, the report formats). A target that speaks the protocol
	// must keep it: required.
	TierProtocol Tier = "protocol"
	// TierConsequence: the clause follows from words of the spec or ADR 0026, which it quotes
	// (Clause.Rests): required.
	TierConsequence Tier = "consequence"
	// TierChoice: the spec is silent and the project recommends: recommended, never blocking a
	// certificate (unless the run is --strict).
	TierChoice Tier = "choice"
)

// Tiers lists the tiers in reporting order.
func Tiers() []Tier { return []Tier{TierProtocol, TierConsequence, TierChoice} }

// Requirement is how a clause, or a check through the clauses it enforces, binds a target.
type Requirement string

const (
	// Required: a MUST-level failure blocks a certificate.
	Required Requirement = "required"
	// Recommended: a failure is listed as a recommendation not met and blocks only under --strict.
	Recommended Requirement = "recommended"
)

// Requirement is Required for spec and ADR clauses and for protocol and consequence
// interpretations, Recommended for choices.
func (c Clause) Requirement() Requirement {
	if c.Source == SourceInterpretation && c.Tier == TierChoice {
		return Recommended
	}
	return Required
}

// RequirementOf is how a check enforcing clauseIDs binds a target: Required when any of them is
// required (a check that also enforces a spec sentence blocks on it), Recommended when every one is
// a choice. Unknown ids count as required, so a typo never demotes a check (Validate reports it).
func RequirementOf(clauseIDs []string) Requirement {
	if len(clauseIDs) == 0 {
		return Required
	}
	for _, id := range clauseIDs {
		c, ok := lookupIndex()[id]
		if !ok || c.Requirement() == Required {
			return Required
		}
	}
	return Recommended
}

// CheckRequirement is how a check of level enforcing clauseIDs binds a target: Required when it is a
// MUST / MUST NOT check and RequirementOf its clauses is Required; every other check (a SHOULD or
// MAY check, or one enforcing only choices) is Recommended. This is the one rule every runner and
// report uses to decide whether a failure blocks a certificate.
func CheckRequirement(level Level, clauseIDs []string) Requirement {
	if level != Must && level != MustNot {
		return Recommended
	}
	return RequirementOf(clauseIDs)
}

// protocol, consequence and choice set an interpretation's tier in the clause tables.
func (c Clause) protocol() Clause { c.Tier = TierProtocol; return c }

func (c Clause) choice() Clause { c.Tier = TierChoice; return c }

// consequence records the spec or ADR words the clause follows from: the section and the quoted
// words, e.g. `§7 "sequence 0 included"`.
func (c Clause) consequence(rests string) Clause {
	c.Tier, c.Rests = TierConsequence, rests
	return c
}

func validateTier(c Clause) error {
	switch {
	case c.Source != SourceInterpretation && (c.Tier != "" || c.Rests != ""):
		return fmt.Errorf("clause %s: only an interpretation has a tier", c.ID)
	case c.Source != SourceInterpretation:
		return nil
	}
	switch c.Tier {
	case TierProtocol, TierChoice:
		if c.Rests != "" {
			return fmt.Errorf("clause %s: only a consequence quotes the words it rests on", c.ID)
		}
	case TierConsequence:
		if !restsForm.MatchString(c.Rests) {
			return fmt.Errorf("clause %s: a consequence quotes the words it rests on as `§N \"words\"` or `ADR 0026 \"words\"` (got %q)", c.ID, c.Rests)
		}
	case "":
		// Not reviewed yet: counts as required (RequirementOf) until the review gives it a tier.
		return nil
	default:
		return fmt.Errorf("clause %s: unknown tier %q", c.ID, c.Tier)
	}
	return nil
}

// restsForm is how a consequence cites its words: a section of the spec or ADR 0026, then the
// quoted words.
var restsForm = regexp.MustCompile(`^(§[0-9.]+|ADR 0026( [A-Z][0-9.]+)?) "[^"]+"`)
