package badges

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package and the clauses they enforce.
func Checks() []spec.Check {
	t := func(id, fn string) spec.Check {
		return spec.Check{ID: "badges/" + id, Kind: spec.KindTest, Clauses: []string{"S10.badges.evidence"}, Where: "fitness/badges:" + fn}
	}
	return []spec.Check{
		t("parse-strict", "TestParseRefusesMalformed"),
		t("claims-resolved", "TestClaimsWithoutEvidenceFail"),
		t("maturity-rules", "TestMaturityRules"),
		{ID: "badges/reports-as-evidence", Kind: spec.KindTest, Clauses: []string{"S10.badges.evidence", "I-CERT-20"}, Where: "fitness/badges:TestReportEvidence"},
	}
}

// Mutants lists the forged evidence the checker must refuse.
func Mutants() []spec.Mutant {
	m := func(name, defect string) spec.Mutant {
		return spec.Mutant{ID: "badge/evidence/" + name, Kind: "badge", Defect: defect, Clauses: []string{"S10.badges.evidence"},
			CaughtBy: []string{"badges/reports-as-evidence"}, Where: "fitness/badges:TestReportEvidence"}
	}
	return []spec.Mutant{
		m("waived-certificate", "a certificate with waived MUST failures cited as evidence"),
		m("partial-certificate", "a --run subset cited as evidence"),
		{ID: "badge/evidence/foreign-harness", Kind: "badge", Defect: "a report of an incompatible harness version (another minor below 1.0.0, its development builds included) cited as evidence",
			Clauses: []string{"S10.badges.evidence", "I-CERT-20"}, CaughtBy: []string{"badges/reports-as-evidence"}, Where: "fitness/badges:TestReportEvidence"},
		m("verdict-edited", "a report whose MUST check failed, with its verdict edited to certified"),
		m("nothing-judged", "a report that says certified but ran no check"),
		m("held-seam", "a certificate whose seam was held to an older SPI version, cited without naming one"),
		m("current-lowered", "a report that states an older current SPI version so its held seam looks current"),
		m("wrong-seam", "a certificate of another seam cited as evidence"),
		m("older-spi", "a certificate held to another SPI version cited as evidence"),
		m("edited-badge", "a badge edited from its report's verdict into \"certified\""),
		m("borrowed-badge", "a badge drawn from another report"),
		m("malformed-report", "a malformed report cited as evidence"),
		m("missing-report", "a report that does not exist cited as evidence"),
	}
}
