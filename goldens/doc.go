// Package goldens is golden-log replay (spec §10: one of the two gates that prove replay
// unchanged; §3: determinism is enforced by it). A golden is a directory of the corpus
// (goldens/corpus/<name>/) holding a flow script and a driver script (package flowscript) and what
// running them on the reference kernel recorded: log.ndjson, state.json and recorded.json.
//
//   - Check re-runs every golden and compares byte for byte, replays each recorded log as a fixture
//     (ReplayAsFixture: nothing appended, same result and fold, no effect run) and re-runs it with
//     each optional feature configured but unwired (G2Variants, spec §1 G2).
//   - DiffRuns names the first divergence of two runs: envelope index, event type, JSON Pointer and
//     a (-want +got) diff, masking only envelope ids and timestamps unless strict (I-GOLDEN-2).
//   - Record re-records a golden; the CLI writes only on an explicit flag.
//
// Example:
//
//	corpus, err := goldens.LoadCorpus("goldens/corpus")
//	for _, r := range goldens.Check(ctx, corpus, goldens.CheckOptions{}) {
//		if r.Failed() {
//			fmt.Println(r) // goldens/<name> [<clauses>]: <stage>: envelope i (TYPE) differs at /ptr ...
//		}
//	}
//
// docs/goldens.md documents the formats and the rules.
package goldens
