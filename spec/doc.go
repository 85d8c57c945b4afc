// Package spec is the Loom kernel specification as data: every normative statement of the two seed
// documents (the kernel specification and ADR 0026) as a Clause with a stable id, its section, its
// level (MUST, MUST NOT, SHOULD, MAY), its source (spec, adr, or interpretation — a decision this
// project made where the spec is silent, recorded in docs/interpretations.md) and a one-line
// paraphrase.
//
// Checks elsewhere in the project (unit tests, kit checks, vectors) name the clause ids they
// enforce as Check values; Validate refuses a check that names an unknown clause, and
// ComputeCoverage builds the clause × check matrix that `loom-conform spec --coverage` prints.
//
//	c, ok := spec.Lookup("S4.fold.unknown-inert")
//	cov := spec.ComputeCoverage(checks)
//	fmt.Println(cov.Totals)
//
// This package imports nothing else of the project.
package spec
