package fitness

import "fmt"

// cliStartMax is the start-up target of I-PERF-10: `loom-conform version`, the front that serves
// version, fold and digest and hands every other verb to loom-conform-full, within twice a
// hello-world Go program (docs/performance.md).
const cliStartMax = 2.0

// Where the gates are enforced.
const (
	enforcedCI       = "CI: .ci/run (make fitness) and the fitness job of .github/workflows/ci.yml"
	enforcedCIMatrix = "CI: .ci/run (make fitness) and the sharded fitness matrix of .github/workflows/ci.yml"
)

// Gates returns the fitness gates of the project (spec §10: the continuous checks enumerated with
// their enforcement location and gated in CI). docs/fitness.md is generated from this list.
func Gates() []Gate {
	return []Gate{
		{
			ID: "pins/abi-schema-wire", Kind: KindChecks,
			Guarantee: "the syscall ABI, the event schema, the wire methods and the SPI tables change only with their versions (K1, K5)",
			Clauses:   []string{"S10.pins.drift", "S2.K1.drift-fails", "S4.K5.version-and-set-together"},
			Checks:    []string{"manifest/*"},
			Threshold: "every pin check passes", Enforced: enforcedCI,
		},
		{
			ID: "kits/memory", Kind: KindChecks,
			Guarantee: "every SPI conformance kit passes against the in-memory reference stores",
			Clauses:   []string{"S10.kits.reference-impls"},
			Checks:    []string{"stores/memory/*"},
			Threshold: "every kit check passes", Enforced: enforcedCI,
		},
		{
			ID: "kits/sqlite", Kind: KindChecks,
			Guarantee: "every SPI conformance kit passes against the SQLite reference stores",
			Clauses:   []string{"S10.kits.reference-impls"},
			Checks:    []string{"stores/sqlite/*"},
			Threshold: "every kit check passes", Enforced: enforcedCI,
		},
		{
			ID: "kits/postgres", Kind: KindChecks,
			Guarantee: "every SPI conformance kit passes against the PostgreSQL reference stores",
			Clauses:   []string{"S10.kits.reference-impls"},
			Checks:    []string{"stores/postgres/*"},
			Threshold: "every kit check passes (PostgreSQL required under CI=true)", Enforced: enforcedCI,
		},
		{
			ID: "vectors/fold", Kind: KindChecks,
			Guarantee: "the reference fold passes every language-neutral fold vector, and wrong folds fail exactly the predicted ones",
			Clauses:   []string{"S10.pins.drift", "S3.determinism.enforced", "A26.vectors.language-agnostic"},
			Checks:    []string{"vectors/reference-passes", "vectors/foreign-wrong-folds", "vectors/js-oracle"},
			Threshold: "every vector passes", Enforced: enforcedCI,
		},
		{
			ID: "replay/goldens", Kind: KindChecks,
			Guarantee: "re-running every golden flow reproduces its recorded log and folded state byte for byte",
			Clauses:   []string{"S10.replay-unchanged", "S3.determinism.enforced"},
			Checks:    []string{"goldens/*", "cli/goldens-check", "cli/replay"},
			Threshold: "no golden diverges", Enforced: enforcedCIMatrix,
		},
		{
			ID: "replay/deploysim", Kind: KindChecks,
			Guarantee: "seeded fleet simulations (rolling upgrade, rollback, crashes, zombies, migration) keep every invariant",
			Clauses:   []string{"S10.replay-unchanged"},
			Checks:    []string{"deploysim/scenario-sweep", "deploysim/broken-fleets-caught", "deploysim/deterministic"},
			Threshold: "every scenario passes its seed sweep", Enforced: enforcedCIMatrix,
		},
		{
			ID: "g2/behavioural", Kind: KindChecks,
			Guarantee: "with every optional capability configured but unwired, logs are byte-identical to a kernel without it",
			Clauses:   []string{"S10.g2.behavioural-and-ratio", "S1.G2.unwired-byte-identical", "S1.G2.opt-in"},
			Checks:    []string{"kernel/UnwiredOptionsByteIdentical", "kernel/ZeroConfigEnablesNothingOptional", "ingress/schema-absent", "goldens/G2Unwired"},
			Threshold: "every disabled-path test passes", Enforced: enforcedCI,
		},
		{
			ID: "g2/ratio", Kind: KindRatio,
			Guarantee: "an unwired capability costs nothing: the kernel with every option configured but unwired (budget, timer store, Wave 2 flags, the wire carrier mounted with no client) runs as fast as without",
			Clauses:   []string{"S10.g2.behavioural-and-ratio", "S1.G2.unwired-byte-identical"},
			Ratio:     &Ratio{Workload: "g2-unwired", Max: 1.05},
			Threshold: "unwired/plain ≤ 1.05: its 95 % interval, widened by the A/A bias, wholly ≤ 1.05 (21 to 210 interleaved rounds)", Enforced: enforcedCI,
		},
		{
			ID: "perf/fold-vs-decode", Kind: KindRatio,
			Guarantee: "folding costs little more than decoding the same bytes",
			Clauses:   []string{"S3.fold.copy-on-write"},
			Ratio:     &Ratio{Workload: "fold-vs-decode", Max: 1.5},
			Threshold: "(decode+fold)/decode ≤ 1.5 at 10 000 envelopes (95 % interval)", Enforced: enforcedCI,
		},
		{
			ID: "perf/kernel-vs-direct", Kind: KindRatio,
			Guarantee: "a durable step costs at most a small multiple of calling its effect directly",
			Clauses:   []string{"S1.P10.minimal-kernel"},
			Ratio:     &Ratio{Workload: "kernel-vs-direct", Max: 3},
			Threshold: "kernel/direct ≤ 3 for start → 10 steps → complete (95 % interval)", Enforced: enforcedCI,
		},
		{
			ID: "perf/cli-start", Kind: KindRatio,
			Guarantee: "the command line starts near the floor of any Go program: no command pays the initialisation of a dependency it does not use",
			Clauses:   []string{"I-PERF-10", "I-PERF-1"},
			Ratio:     &Ratio{Workload: "cli-start", Max: cliStartMax},
			Threshold: fmt.Sprintf("`loom-conform version` / a hello-world Go binary of the same toolchain ≤ %g in CPU time of the child processes (95 %% interval, docs/performance.md)", cliStartMax),
			Enforced:  enforcedCI,
		},
		{
			ID: "perf/cli-fold-pairs", Kind: KindRatio,
			Guarantee: "`loom-conform fold` end to end, process start included, runs at least twice as fast as encoding/json's bare decode of the same log end to end (the plain pairs log, 100 000 envelopes)",
			Clauses:   []string{"I-PERF-11", "I-PERF-1", "I-PERF-4"},
			Ratio:     &Ratio{Workload: "cli-fold-pairs", Max: 0.5},
			Threshold: "fold/decode ≤ 0.5 in CPU time, each a child process reading the same file (95 % interval)",
			Enforced:  enforcedCI,
		},
		{
			ID: "perf/cli-fold-mix", Kind: KindRatio,
			Guarantee: "`loom-conform fold` end to end, process start included, runs at least twice as fast as encoding/json's bare decode of the same log end to end (the realistic mix, 100 000 envelopes)",
			Clauses:   []string{"I-PERF-11", "I-PERF-1", "I-PERF-4"},
			Ratio:     &Ratio{Workload: "cli-fold-mix", Max: 0.5},
			Threshold: "fold/decode ≤ 0.5 in CPU time, each a child process reading the same file (95 % interval)",
			Enforced:  enforcedCI,
		},
		{
			ID: "perf/sqlite-vs-raw", Kind: KindBench,
			Guarantee: "the SQLite reference store appends at ≥ 0.7× the raw driver doing the same work",
			Clauses:   []string{"S10.kits.reference-impls"},
			Bench:     &Bench{ID: "sqlite-append-vs-raw", Package: "reference/stores/sqlite", Name: "BenchmarkAppendSingle", Metric: "store/raw", Benchtime: "200x", Min: 0.7},
			Threshold: "median store/raw ≥ 0.7 over 5 runs of 200 iterations", Enforced: enforcedCI,
		},
		{
			ID: "perf/postgres-vs-raw", Kind: KindBench,
			Guarantee: "the PostgreSQL reference store appends batches at ≥ 0.7× the raw driver doing the same work",
			Clauses:   []string{"S10.kits.reference-impls"},
			Bench:     &Bench{ID: "postgres-batch-vs-raw", Package: "reference/stores/postgres", Name: "BenchmarkAppendBatch100", Metric: "store/raw", Benchtime: "200x", Min: 0.7},
			Threshold: "median store/raw ≥ 0.7 over 5 runs of 200 iterations", Enforced: enforcedCI,
		},
		{
			ID: "badges/evidence", Kind: KindChecks,
			Guarantee: "every capability badge of capabilities.json has the evidence it claims, and forged certificates and badges are refused",
			Clauses:   []string{"S10.badges.evidence"},
			Checks:    []string{"cli/badges", "badges/*"},
			Threshold: "badges check passes on capabilities.json; every forged evidence mutant is refused", Enforced: enforcedCI,
		},
		{
			ID: "coverage/must", Kind: KindCoverage,
			Guarantee: "no MUST or MUST NOT clause is left without a check, beyond a reviewed ledger",
			Clauses:   []string{"S10.fitness.gated"},
			Threshold: "every uncovered MUST clause is in fitness/coverage-ledger.json, and every ledger entry is still uncovered", Enforced: enforcedCI,
		},
		{
			ID: "mutants/killed", Kind: KindMutants,
			Guarantee: "every registered mutant (broken store, fold, kernel, gate, bridge, fleet) is rejected by the check meant for it",
			Clauses:   []string{"S10.fitness.gated"},
			Threshold: "every registered mutant has a recorded kill in the proof records of the last make test, each of its clauses by a check linked to that clause", Enforced: enforcedCI,
		},
	}
}
