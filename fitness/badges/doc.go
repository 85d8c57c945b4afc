// Package badges checks capability badges against evidence (spec §10: maturity is
// self-checking). A capabilities.json file (docs/badges.md) lists capabilities, each with a
// maturity — experimental, beta, stable — and the evidence it claims: version constants of the
// kernel manifest, check ids, fitness bench gates, goldens, deploy-simulation scenarios, or, for
// a third party, certification reports and the badges drawn from them. Check resolves every claim
// against an Index and applies the harness's maturity rules (rules.json, owned by the harness, not
// by the claimant); every claim without evidence and every rule not met is a Problem naming the
// capability and the claim.
//
//	f, err := badges.Parse(data, "capabilities.json")
//	rules, err := badges.DefaultRules()
//	for _, p := range badges.Check(f, rules, index) { fmt.Println(p) }
//
// A certification report counts only when it is well-formed, from a harness of the same major
// version, certified with no waivers, no subset and no older SPI version, for the named seam; a
// cited badge must carry that report's digest and say what the report says.
package badges
