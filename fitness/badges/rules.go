package badges

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// Kind names a kind of evidence a rule can ask for.
type Kind string

const (
	KindVersions     Kind = "versions"     // a resolved version constant
	KindChecks       Kind = "checks"       // a known check
	KindProvenChecks Kind = "provenChecks" // a check that a registered mutant proves can fail
	KindBenches      Kind = "benches"      // a fitness bench or ratio gate
	KindGoldens      Kind = "goldens"      // a golden of the corpus
	KindScenarios    Kind = "scenarios"    // a deploy-simulation scenario
	KindReports      Kind = "reports"      // a certification report that certifies, no waivers
)

// Requirement asks for at least Min pieces of resolved evidence of any of the kinds AnyOf.
type Requirement struct {
	AnyOf []Kind `json:"anyOf"`
	Min   int    `json:"min"`
	Why   string `json:"why"`
}

// Rules are the requirements per maturity. They belong to the harness, not to the claimant.
type Rules map[Maturity][]Requirement

//go:embed rules.json
var rulesJSON []byte

// DefaultRules returns the harness's rules (fitness/badges/rules.json; docs/badges.md).
func DefaultRules() (Rules, error) {
	var r Rules
	if err := json.Unmarshal(rulesJSON, &r); err != nil {
		return nil, fmt.Errorf("badges rules: %w", err)
	}
	for _, m := range []Maturity{Experimental, Beta, Stable} {
		if len(r[m]) == 0 {
			return nil, fmt.Errorf("badges rules: no requirements for %s", m)
		}
		for i, q := range r[m] {
			if len(q.AnyOf) == 0 || q.Min < 1 || q.Why == "" {
				return nil, fmt.Errorf("badges rules: %s[%d]: anyOf, min ≥ 1 and why are required", m, i)
			}
			for _, k := range q.AnyOf {
				switch k {
				case KindVersions, KindChecks, KindProvenChecks, KindBenches, KindGoldens, KindScenarios, KindReports:
				default:
					return nil, fmt.Errorf("badges rules: %s[%d]: unknown evidence kind %q", m, i, k)
				}
			}
		}
	}
	return r, nil
}
