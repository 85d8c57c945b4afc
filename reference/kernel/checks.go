package kernel

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package and the clauses each enforces.
func Checks() []spec.Check {
	t := func(name string, clauses ...string) spec.Check {
		return spec.Check{ID: "kernel/" + name, Kind: spec.KindTest, Clauses: clauses, Where: "reference/kernel:Test" + name}
	}
	return []spec.Check{
		t("WorkedExample1FreshRun", "S3.emit.identity", "S3.emit.stamp", "S3.emit.stamp-exceeds-count", "S3.emit.canonical-form", "S3.emit.serve-append", "S3.emit.fold-count"),
		t("WorkedExample2ResumeServesSegmentZero", "S3.emit.serve-skip", "S3.emit.segment", "S3.resume.rerun-served", "S2.execute.served-not-rerun", "S1.P9.decision-logged", "S3.emit.once"),
		t("WorkedExample3CrashBeforeDecision", "S3.emit.serve-skip", "S3.emit.serve-append", "S3.emit.once"),
		t("WorkedExample4CrashDuringStep", "S41.typed.untyped-at-least-once", "S3.emit.serve-append"),
		t("WorkedExample5SameContentTwice", "S3.emit.stamp-exceeds-count", "S3.emit.serve-skip", "S3.emit.fold-count"),
		t("WorkedExample6CodeChangeInsertsLiveStep", "S3.emit.serve-append", "S3.emit.stamp-exceeds-count", "S3.emit.residual"),
		t("WorkedExample7EmitWhileSiblingInFlight", "S3.emit.stamp-nothing-in-flight", "S3.emit.never-timing", "I-KERNEL-5"),
		t("WorkedExample8EmitAfterUnservedOutcome", "S3.emit.stamp-nothing-unserved"),
		t("WorkedExample9UnmatchablePayload", "S3.emit.unmatchable-unstamped", "I-KERNEL-4"),
		t("WorkedExample10LegacyLog", "S3.emit.legacy-log"),
		t("WorkedExample11NeverStamped", "S3.emit.kernel-facts-unstamped", "I-KERNEL-11"),
		t("TypedFailureRecordedAndSubstituted", "S41.typed.declare", "S41.typed.record", "S41.typed.replay-substitution", "S41.typed.no-fail-syscall", "S4.v1_17.typed-failure-fields"),
		t("TypedFailureStepLevelWins", "S41.typed.step-wins", "S41.typed.validate-before-append", "I-KERNEL-12"),
		t("TypedFailureDegradesLoudly", "S41.typed.degrade-loudly", "S41.typed.cap-16k", "I-KERNEL-13"),
		t("UntypedFailureReexecuted", "S41.typed.untyped-at-least-once", "I-KERNEL-3"),
		t("ResumeRefusalsAppendNothing", "S5.ingress.always", "S5.ingress.kernel-namespace", "S5.ingress.gate-match", "S5.ingress.timer-needs-wakeat",
			"S5.ingress.recovered-running-only", "S5.ingress.refusal-appends-nothing", "S5.schema.parse-before-append", "S5.schema.record-parsed", "S5.schema.refuse-still-parked"),
		t("ResumeWhileRunningRefused", "S5.ingress.not-suspended", "S5.ingress.recovered-running-only", "S5.ingress.redrive-no-resumed"),
		t("ResumeAsTransformRecorded", "S5.resumeas.transform-may", "S5.resumeas.transform-recorded", "S5.resumeas.transform-fail-refuses", "S4.v1_15.migrated-input", "S6.migrated.verdict", "I-KERNEL-15"),
		t("InDoubtParkAndVerdicts", "S5.ingress.indoubt-verdict-recorded", "S5.ingress.indoubt-other-refused", "S5.decide.verdict-beside-indoubt", "I-KERNEL-14"),
		t("TimersFireAfterRestart", "S5.timer.durable-wakeat", "S5.timer.time-in-log", "S5.timer.derive-wakeat", "S5.ingress.timer-needs-wakeat", "I-KERNEL-7", "I-KERNEL-17"),
		t("TimedSuspendWithoutTimerStoreReported", "S5.timer.unwired-reported", "I-KERNEL-17"),
		t("ResourcesMeteredAndBudget", "S8.resources.metered-per-effect", "S8.resources.dimensions", "S8.resources.no-false-zeros", "S8.budget.may-cap",
			"S8.budget.quota-exceeded", "S8.budget.negotiate", "I-KERNEL-9", "I-KERNEL-10"),
		t("ReplayFromSnapshotSameState", "S3.snapshot.equivalence", "S3.snapshot.out-of-band"),
		t("ReplayFinishedAppendsNothing", "S3.resume.rerun-served", "S2.execute.served-not-rerun", "S1.P2.replay-identical", "S5.replay.gates-in-order", "I-KERNEL-1"),
		t("SyscallsUnknownAndDisabled", "S2.syscalls.available-iff-listed", "S2.syscalls.wave2-flagged", "S5.decide.loom-reserved", "S5.emit.userspace-kernel-refused"),
		t("KindsResolveByToolID", "S2.execute.kinds-by-toolid", "S2.run.alias"),
		t("FlowPanicAndHang", "S5.ingress.refusal-appends-nothing", "I-KERNEL-2"),
		t("Wave2Syscalls", "S2.syscalls.wave2-flagged", "S4.v1_23.continued", "S4.v1_23.message-consumed", "S4.v1_23.wait-addressed-resume", "I-KERNEL-8", "I-KERNEL-16"),
		t("HumanStepConsumesEntriesInOrder", "S5.human.condition-stepid", "S5.ingress.human-step-entry", "S5.ingress.one-entry-per-suspend", "S5.replay.gates-in-order", "I-KERNEL-22"),
		t("ResumeAsOntoTerminalAndCrashed", "S5.ingress.resumeas-terminal-null", "S5.resumeas.crashed-namespace-only", "S5.ingress.redrive-no-resumed"),
		t("ResumeAuthenticatorRecordedOrRejected", "S5.auth.may-gate", "S5.auth.approval-recorded", "S5.auth.rejected-not-logged", "S5.order.identity-ingress-shape"),
		t("EmitDigestCanonicalForm", "S3.emit.canonical-form", "S3.emit.identity"),
		t("DriveRefusesCrashedExecution", "S5.ingress.always", "I-KERNEL-1"),
		t("SuspendConfigAndRouting", "S5.suspend.config", "S5.resume.by-execution-id", "S5.resume.correlation-optional", "S5.resume.correlation-not-required"),
		t("SuspendRefusals", "I-KERNEL-6", "I-KERNEL-21"),
		t("SameStepIDServedLive", "S41.typed.same-id-live", "S41.typed.replay-substitution"),
		t("RedispatchFencesZombie", "S6.resume.is-migration", "S6.dispatch.stateless-workers", "S6.fencing.zombie", "I-KERNEL-20"),
		t("ParallelDuplicateContentNeverLost", "I-KERNEL-19", "S3.emit.residual"),
		t("IngressWorkedExamplesThroughRuntime", "S5.ingress.kernel-namespace", "S5.ingress.refusal-appends-nothing", "S4.ingress.null-after-parked-failure",
			"S4.fold.failed-while-parked-cleared", "S5.ingress.suspended-only", "S5.ingress.recovered-running-only"),
		t("LegacyResumeEntryReplayedAndWarned", "S5.ingress.legacy-as-written", "S5.ingress.legacy-warn"),
		t("ReplayDivergenceReported", "I-KERNEL-1", "S1.P2.replay-identical"),
		t("EmitRuleTable", "S3.emit.serve-skip", "S3.emit.serve-append", "S3.emit.stamp-exceeds-count", "S3.emit.stamp-nothing-in-flight",
			"S3.emit.stamp-nothing-unserved", "S3.emit.kernel-facts-unstamped", "S3.emit.legacy-log"),
		t("ConcurrentResumesOneWins", "S5.ingress.one-entry-per-suspend", "S5.ingress.refusal-appends-nothing"),
		t("RuntimeOverEveryReferenceStore", "S3.resume.rerun-served", "S3.emit.once", "S3.snapshot.equivalence"),
		t("CancelEndsExecution", "S4.fold.status-execution-only", "S5.ingress.refusal-appends-nothing", "I-KERNEL-23"),
		{ID: "kernel/fuzz-resume", Kind: spec.KindFuzz, Clauses: []string{"S5.ingress.refusal-appends-nothing", "S5.ingress.gate-match", "S5.ingress.always"}, Where: "reference/kernel:FuzzResumeInput"},
		{ID: "kernel/fuzz-call", Kind: spec.KindFuzz, Clauses: []string{"S2.syscalls.available-iff-listed"}, Where: "reference/kernel:FuzzCall"},
		t("UnwiredOptionsByteIdentical", "S1.G2.opt-in", "S1.G2.unwired-byte-identical", "S5.schema.absent-unchanged"),
	}
}
