package spec

import (
	"strings"
	"testing"
)

// Reference: DESIGN §7.1, two tiers — every interpretation has a tier, and a consequence cites
// the spec words it rests on.
func TestValidateRegistryHoldsTiers(t *testing.T) {
	i := func() Clause { return interp("I-X-1", "§7", Must, "x", "why") }
	for name, tc := range map[string]struct {
		c    Clause
		want string // "" = valid
	}{
		"no tier":                  {i(), "needs a tier"},
		"protocol":                 {i().protocol(), ""},
		"choice":                   {i().choice("refuse", "park"), ""},
		"a choice without options": {i().choice(), "lists its legal options"},
		"a choice with one option": {i().choice("refuse"), "got 1"},
		"an empty option":          {i().choice("refuse", " "), "legal option 2 is empty"},
		"an option twice":          {i().choice("refuse", "refuse"), "listed twice"},
		"an option with a ;":       {i().choice("refuse; or not", "park"), "without \";\""},
		"options on a protocol":    {func() Clause { c := i().protocol(); c.Options = []string{"a", "b"}; return c }(), "only a choice lists"},
		"consequence":              {i().consequence(`§7 "sequence 0 included"`), ""},
		"consequence of 4.1":       {i().consequence(`§4.1 "capped at 16 KiB"`), ""},
		"consequence of the ADR":   {i().consequence(`ADR 0026 A3 "parks durably and visibly"`), ""},
		"two quotes":               {i().consequence(`§3 "never stamped"; §3 "Otherwise it MUST be appended"`), ""},
		"no quote":                 {i().consequence(`§7`), "quotes the words"},
		"no section":               {i().consequence(`"sequence 0 included"`), "quotes the words"},
		"unknown section":          {i().consequence(`§11 "words"`), "quotes the words"},
		"text after the quote":     {i().consequence(`§7 "words" and more`), "quotes the words"},
		"long quote": {i().consequence(`§4 "` + strings.Repeat("word ", maxQuotedWords+1) + `"`),
			"at most 20 per quote"},
		"unknown tier":        {func() Clause { c := i(); c.Tier = "vibe"; return c }(), "unknown tier"},
		"rests on a protocol": {func() Clause { c := i().protocol(); c.Rests = `§7 "x"`; return c }(), "only a consequence"},
		"tier on a spec clause": {func() Clause { c := s("S9.x", "§9", Must, "x"); c.Tier = TierChoice; return c }(),
			"only an interpretation"},
	} {
		err := ValidateRegistry([]Clause{tc.c})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("ValidateRegistry(%s) = %v, want nil", name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("ValidateRegistry(%s) = %v, want an error containing %q", name, err, tc.want)
		}
	}
}

func TestRequirementFollowsTier(t *testing.T) {
	for id, want := range map[string]Requirement{
		"S5.ingress.gate-match": Required,    // spec
		"A26.acceptance":        Required,    // ADR
		"I-BRIDGE-3":            Required,    // protocol
		"I-STORE-26":            Required,    // consequence
		"I-STORE-50":            Recommended, // choice
	} {
		c, ok := Lookup(id)
		if !ok {
			t.Fatalf("Lookup(%q) = missing", id)
		}
		if got := c.Requirement(); got != want {
			t.Errorf("Lookup(%q).Requirement() = %s, want %s (tier %q)", id, got, want, c.Tier)
		}
	}
	for name, tc := range map[string]struct {
		ids  []string
		want Requirement
	}{
		"only choices":           {[]string{"I-STORE-50", "I-STORE-52"}, Recommended},
		"a choice and the spec":  {[]string{"I-STORE-50", "S6.fencing.zombie"}, Required},
		"a choice and protocol":  {[]string{"I-STORE-52", "I-BRIDGE-3"}, Required},
		"an unknown id":          {[]string{"I-STORE-50", "I-NO-SUCH"}, Required},
		"no clause (never demo)": {nil, Required},
	} {
		if got := RequirementOf(tc.ids); got != tc.want {
			t.Errorf("RequirementOf(%s %v) = %s, want %s", name, tc.ids, got, tc.want)
		}
	}
}
