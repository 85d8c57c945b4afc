package goldens

import (
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/spec"
)

// Checks lists the tests of this package (and of goldens/flowscript) and the clauses each enforces.
func Checks() []spec.Check {
	t := func(name string, clauses ...string) spec.Check {
		return spec.Check{ID: "goldens/" + name, Kind: spec.KindTest, Clauses: clauses, Where: "goldens:Test" + name}
	}
	return append([]spec.Check{
		t("CorpusCheck", "S10.replay-unchanged", "S3.determinism.enforced", "S1.P2.replay-identical", "S3.resume.rerun-served",
			"S5.replay.gates-in-order", "S4.replay.byte-identical-unaffected", "S2.execute.served-not-rerun", "I-GOLDEN-1", "I-GOLDEN-3"),
		t("G2Unwired", "S1.G2.unwired-byte-identical", "S10.g2.behavioural-and-ratio", "I-GOLDEN-4"),
		t("HookMutantsFailCheck", "S10.replay-unchanged", "S3.determinism.enforced"),
		t("ReplayAsFixtureRejectsTamperedLogs", "S10.replay-unchanged", "S1.P2.replay-identical", "S2.execute.served-not-rerun", "I-GOLDEN-3"),
		t("OldProfilesReplayOnCurrentKernel", "S4.replay.byte-identical-unaffected", "S10.replay-unchanged"),
		t("V124EventBytesUnchanged", "S4.v1_24.wire-unchanged"),
		t("DiffRunsFirstDivergence", "S10.replay-unchanged", "I-GOLDEN-2"),
		t("CorpusCoversSyscallsAndEvents", "S3.determinism.enforced", "S2.syscalls.available-iff-listed"),
		t("LoadRefusesBadInput", "S10.replay-unchanged"),
		t("RecordedVersionsChecked", "S10.replay-unchanged", "I-GOLDEN-5"),
		{ID: "goldens/ShardsMergeIntoOneRun", Kind: spec.KindTest, Clauses: []string{"S10.fitness.gated", "I-SHARD-1", "I-SHARD-2", "I-SHARD-3"}, Where: "goldens:TestShardsMergeIntoOneRun"},
	}, flowscript.Checks()...)
}
