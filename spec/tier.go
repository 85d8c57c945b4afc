package spec

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Tier says how an interpretation clause binds a target (DESIGN §7.1). Spec and ADR clauses have no
// tier: they are required by their source.
type Tier string

const (
	// TierProtocol: the clause defines this harness's own protocol: the store bridge, the kernel
	// wire carrier, the vector protocol, the flow-script and golden formats, the report and verdict
	// formats, and what each SPI method means on valid input where the spec names the method but
	// not its meaning (the harness's SPI is its projection of seams whose interfaces are not
	// public). A target that speaks the protocol must keep it: required. How a method treats
	// input the spec does not cover (the order of several refusals, bounds, edge cases where any
	// answer harms no caller) is a choice, not protocol.
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

// Requirements lists the requirements in reporting order.
func Requirements() []Requirement { return []Requirement{Required, Recommended} }

// Requirement is how a clause of tier t binds a target: recommended for a choice, required
// otherwise.
func (t Tier) Requirement() Requirement {
	if t == TierChoice {
		return Recommended
	}
	return Required
}

// Label is how reports name the tier: with the requirement it carries, e.g. "choice (recommended)".
func (t Tier) Label() string { return string(t) + " (" + string(t.Requirement()) + ")" }

// Requirement is Required for spec and ADR clauses and for protocol and consequence
// interpretations, Recommended for choices.
func (c Clause) Requirement() Requirement {
	if c.Source != SourceInterpretation {
		return Required
	}
	return c.Tier.Requirement()
}

// TierName is the clause's tier as printed: "-" for a spec or ADR clause, which has none (its
// source makes it required).
func (c Clause) TierName() string {
	if c.Tier == "" {
		return "-"
	}
	return string(c.Tier)
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

// choice records the legal options the spec leaves open, ours first (Clause.Options).
func (c Clause) choice(options ...string) Clause {
	c.Tier, c.Options = TierChoice, options
	return c
}

// Ours is the option this project takes: the first of a choice's Options ("" for a clause that
// is not a choice).
func (c Clause) Ours() string {
	if c.Tier != TierChoice || len(c.Options) == 0 {
		return ""
	}
	return c.Options[0]
}

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
	if c.Tier != TierChoice && len(c.Options) > 0 {
		return fmt.Errorf("clause %s: only a choice lists legal options (a %s binds as it is)", c.ID, c.Tier)
	}
	switch c.Tier {
	case TierProtocol, TierChoice:
		if c.Rests != "" {
			return fmt.Errorf("clause %s: only a consequence quotes the words it rests on", c.ID)
		}
		if c.Tier == TierChoice {
			if err := validateOptions(c.Options); err != nil {
				return fmt.Errorf("clause %s: %v", c.ID, err)
			}
		}
	case TierConsequence:
		if err := validateRests(c.Rests); err != nil {
			return fmt.Errorf("clause %s: %v", c.ID, err)
		}
	case "":
		return fmt.Errorf("clause %s: an interpretation needs a tier: .protocol(), .consequence(`§N \"words\"`) or .choice()", c.ID)
	default:
		return fmt.Errorf("clause %s: unknown tier %q", c.ID, c.Tier)
	}
	return nil
}

// validateOptions holds a choice's legal options to their form: at least two (ours and another:
// a "choice" the spec leaves no alternative to is a consequence), each a distinct, non-empty
// behaviour, ours first.
func validateOptions(options []string) error {
	if len(options) < 2 {
		return fmt.Errorf("a choice lists its legal options, ours first and at least one other, .choice(\"ours\", \"another\"): got %d (where every alternative breaks the spec it is a consequence)", len(options))
	}
	seen := map[string]bool{}
	for i, o := range options {
		switch {
		case strings.TrimSpace(o) == "":
			return fmt.Errorf("legal option %d is empty", i+1)
		case seen[o]:
			return fmt.Errorf("legal option %q is listed twice", o)
		case strings.ContainsAny(o, "\n;"):
			return fmt.Errorf("legal option %q: one line without \";\" (the options are printed joined by \"; \")", o)
		}
		seen[o] = true
	}
	return nil
}

// restsForm is how a consequence cites its words: one or more quotes joined by "; ", each a
// section of the spec (§0 to §10, §4.1) or ADR 0026 (optionally one of its parts, A1–A3 or
// T2.1–T2.4), then the quoted words. The words are the spec's own, verbatim; " … " may stand for
// words left out.
var (
	restsForm  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^` + restsQuote + `(; ` + restsQuote + `)*$`) })
	restsQuote = `(§([0-9]|10|4\.1)|ADR 0026( A[1-3]| T2\.[1-4])?) "[^"]+"`
	quoted     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"([^"]+)"`) })
)

// maxQuotedWords bounds each quote: a consequence rests on a few words, not on a copied sentence.
const maxQuotedWords = 20

func validateRests(rests string) error {
	if !restsForm().MatchString(rests) {
		return fmt.Errorf("a consequence quotes the words it rests on as `§N \"words\"` or `ADR 0026 \"words\"`, several joined by \"; \" (got %q)", rests)
	}
	for _, m := range quoted().FindAllStringSubmatch(rests, -1) {
		if n := len(strings.Fields(m[1])); n > maxQuotedWords {
			return fmt.Errorf("a consequence quotes a few words, at most %d per quote (got %d in %q)", maxQuotedWords, n, m[1])
		}
	}
	return nil
}

// Binds names the most binding source or tier among clauseIDs, in the order spec, adr, protocol,
// consequence, choice: what a failing comparison citing them is held to ("spec" when an id is
// unknown, so a typo never reads as a choice).
func Binds(clauseIDs []string) string {
	rank := map[string]int{string(SourceSpec): 0, string(SourceADR): 1, string(TierProtocol): 2, string(TierConsequence): 3, string(TierChoice): 4}
	best := string(TierChoice)
	if len(clauseIDs) == 0 {
		return string(SourceSpec)
	}
	for _, id := range clauseIDs {
		c, ok := lookupIndex()[id]
		name := string(SourceSpec)
		switch {
		case ok && c.Source == SourceInterpretation:
			name = string(c.Tier)
		case ok:
			name = string(c.Source)
		}
		if rank[name] < rank[best] {
			best = name
		}
	}
	return best
}
