// Package proof records, during a run of the test suite, that a registered mutant was rejected by
// a check — the evidence behind "proven" in `loom-conform spec --coverage`.
//
// A proving test calls Rejected with the error or failure message the check produced against the
// mutant. When the environment variable LOOM_CONFORM_PROOFS names a directory, one JSON line
// (a Record) is appended to a file of that directory when the test ends, and only if the test
// passed; when the variable is unset nothing is written and Rejected costs a map-free branch.
// A nil or empty rejection fails the test (the mutant survived), so no record can claim a kill
// the check did not make.
//
//	err := p.Check(mutant, example)
//	proof.Rejected(t, "fold/state/lossy-snapshot", "foldprops/snapshot-every-k", err)
//
// Read loads the records of a directory for spec.Coverage.Prove.
package proof
