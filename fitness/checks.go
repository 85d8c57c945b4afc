package fitness

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package and the clauses they enforce.
func Checks() []spec.Check {
	t := func(id, fn string, clauses ...string) spec.Check {
		return spec.Check{ID: "fitness/" + id, Kind: spec.KindTest, Clauses: clauses, Where: "fitness:" + fn}
	}
	return []spec.Check{
		t("g2-gate-proof", "TestG2GateCatchesSlowUnwiredPath", "S10.g2.behavioural-and-ratio", "S1.G2.unwired-byte-identical", "I-PERF-3"),
		t("ratio-judge", "TestJudgeMax", "S10.g2.behavioural-and-ratio", "I-PERF-2"),
		t("ratio-judge-min", "TestJudgeMin", "S10.g2.behavioural-and-ratio", "I-PERF-2"),
		t("ratio-interval", "TestHodgesLehmann", "S10.g2.behavioural-and-ratio", "I-PERF-1"),
		t("ratio-interleaves", "TestMeasureInterleaves", "S10.g2.behavioural-and-ratio", "I-PERF-1"),
		t("ratio-extends", "TestMeasureUntilExtends", "S10.g2.behavioural-and-ratio", "I-PERF-2"),
		t("ratio-gc", "TestMeasureWithGC", "I-PERF-4", "I-PERF-1"),
		t("ratio-children", "TestTimeBatchCountsChildren", "I-PERF-10", "I-PERF-11", "I-PERF-1"),
		t("cli-start-gate-proof", "TestCLIStartGateCatchesInitWork", "I-PERF-10", "I-PERF-1"),
		t("gate-failure-paths", "TestGateFailurePaths", "S10.fitness.gated"),
		t("coverage-gate", "TestCoverageGate", "S10.fitness.gated"),
		t("mutants-gate", "TestMutantsGate", "S10.fitness.gated"),
		t("shards-merge", "TestShardsMergeIntoOneRun", "S10.fitness.gated"),
		t("gates-valid", "TestGatesValid", "S10.fitness.gated"),
		t("doc-current", "TestFitnessDocCurrent", "S10.fitness.gated"),
		t("gated-in-ci", "TestGatesGatedInCI", "S10.fitness.gated"),
	}
}

// Mutants lists the broken implementations this package proves its gates reject.
func Mutants() []spec.Mutant {
	ci := func(id, defect string) spec.Mutant {
		return spec.Mutant{ID: id, Kind: "fitness", Defect: defect, Clauses: []string{"S10.fitness.gated"},
			CaughtBy: []string{"fitness/gated-in-ci"}, Where: "fitness:TestGatesGatedInCI"}
	}
	return []spec.Mutant{{
		ID: "kernel-hook/g2/unwired-work", Kind: "kernel-hook",
		Defect:   "a kernel whose configured-but-unwired options add 10 % work: one plain execution every hundredth live step (kernel.Hooks.UnwiredWork)",
		Clauses:  []string{"S10.g2.behavioural-and-ratio", "S1.G2.unwired-byte-identical"},
		CaughtBy: []string{"fitness/g2-gate-proof"},
		Where:    "fitness:TestG2GateCatchesSlowUnwiredPath",
	},
		{
			ID: "cli-build/start/init-work", Kind: "cli-build",
			Defect:   "a build of loom-conform whose every command compiles 250 patterns at package initialisation (-tags loom_mutant_initwork)",
			Clauses:  []string{"I-PERF-10"},
			CaughtBy: []string{"fitness/cli-start-gate-proof"},
			Where:    "fitness:TestCLIStartGateCatchesInitWork",
		},
		ci("fitness/ci/workflow-skips-gates", "the CI workflow's fitness job no longer runs `loom-conform fitness`, so no gate is enforced"),
		ci("fitness/registry/enforcement-unnamed", "a gate is listed without the place that enforces it"),
	}
}
