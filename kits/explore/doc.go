// Package explore is differential exploration as data: a seeded Script of steps (an operation and
// its JSON arguments) is applied to the target and to a reference, answer by answer, and the first
// answer where they part is a Mismatch citing the clauses that answer enforces. Shrink cuts a
// disagreeing script down to a minimal one that still disagrees the same way, and a Finding renders
// it as a replayable file. The package knows no seam: the kits supply, per seam, the generator of
// hostile steps, the replay against a fresh target and a fresh reference, and the comparison.
//
//	replay := func(ctx context.Context, s explore.Script) (*explore.Mismatch, error) { … }
//	if m, err := replay(ctx, script); m != nil {
//		small, m, _, err := explore.Shrink(ctx, script, m, replay, 200)
//		os.WriteFile("finding.json", explore.Finding{Script: small, Mismatch: *m}.File(), 0o644)
//	}
//
// A script is a pure function of its seed and round, so the same seed reproduces the same steps;
// whether the target answers the same way is the target's determinism.
package explore
