// Package fuzz is differential testing for foreign folds (`loom-conform vectors fuzz`): it
// generates logs with the fold property kit's generators (kits/foldprops), makes some of them
// hostile (malformed envelopes, hostile payload values, a snapshot plus tail), asks the reference
// fold and the fold under test for each over the vectors line protocol (docs/vectors.md), groups
// the disagreements by root cause (Class: the shrunk log's shape and the first differing path),
// shrinks one log per class to a minimal one that still disagrees and renders it as a vector file
// whose reason and clauses a person fills in. A ledger of known classes (Known) sets understood
// causes aside. A fold under test that crashes or does not answer stops the run (Result.Failure):
// it failed, it did not disagree. A foreign fold's author finds the rules the vectors do not pin yet.
//
//	p, _ := vectors.NewProcess([]string{"node", "fold.js"}, "")
//	res, err := fuzz.Run(ctx, fuzz.Config{Seed: 1, Count: 10000}, vectors.Reference{}, p)
//	for _, c := range res.Open() {
//		os.WriteFile(c.Finding.FileName(), c.Finding.VectorFile(), 0o644)
//	}
//
// Log i of a run is a pure function of the seed Seed+i and the profile, so `--seed S+i --count 1`
// reproduces it.
package fuzz
