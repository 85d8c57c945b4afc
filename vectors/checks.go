package vectors

import (
	"github.com/loom-kernel/loom-conform/spec"
)

// Checks lists every vector of the embedded corpus as a check (Kind spec.KindVector, Where = the
// vector's file) and the tests of this package. A corpus that does not load contributes no
// vector checks; TestCorpusLoads fails on it.
func Checks() []spec.Check {
	t := func(id, fn string, clauses ...string) spec.Check {
		return spec.Check{ID: "vectors/" + id, Kind: spec.KindTest, Clauses: clauses, Where: "vectors:" + fn}
	}
	out := []spec.Check{
		t("corpus-loads", "TestCorpusLoads", "A26.vectors.language-agnostic", "S3.determinism.enforced"),
		t("reference-passes", "TestReferencePassesCorpus", "A26.vectors.language-agnostic", "S10.pins.drift"),
	}
	c, err := Embedded()
	if err != nil {
		return out
	}
	for _, v := range c.Vectors {
		out = append(out, spec.Check{ID: "vector/" + v.ID, Kind: spec.KindVector, Clauses: v.Clauses, Where: v.File})
	}
	return out
}
