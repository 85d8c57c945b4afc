package kernel

import "github.com/loom-kernel/loom-conform/spec"

// hookMutant is one Hooks field as a registered mutant: how to set it, and what it breaks.
type hookMutant struct {
	m   spec.Mutant
	set func(*Hooks)
}

// hookMutants lists every Hooks mutant. One line each; Where names the test that proves the
// rejection (the property kit for the §3 rules, other tests for the rest). A mutant caught only by
// the golden replay names the replay clause alone: the goldens see changed bytes, not which rule
// the change breaks (I-COV-4).
func hookMutants() []hookMutant {
	const props = "kits/kernelprops:TestKitRejectsMutants"
	const own = "reference/kernel:TestHookMutantsFailTheirTests"
	const golden, replay = "goldens:TestHookMutantsFailCheck", "S10.replay-unchanged"
	goldens := []string{"goldens/HookMutantsFailCheck"}
	h := func(name, defect, where string, set func(*Hooks), caught []string, clauses ...string) hookMutant {
		return hookMutant{spec.Mutant{ID: "kernel-hook/runtime/" + name, Kind: "kernel-hook", Defect: defect, Clauses: clauses, CaughtBy: caught, Where: where}, set}
	}
	by := func(ids ...string) []string { return ids }
	return []hookMutant{
		h("stamps-while-in-flight", "stamps emits while effects execute or inside parallel branches", props,
			func(h *Hooks) { h.StampWhileInFlight = true }, by("kernelprops/emit-serving-model"), "S3.emit.stamp-nothing-in-flight"),
		h("stamps-after-unserved", "stamps emits after an outcome a re-run does not serve", props,
			func(h *Hooks) { h.StampAfterUnserved = true }, by("kernelprops/emit-serving-model"), "S3.emit.stamp-nothing-unserved"),
		h("serves-ignoring-live-work", "skips an emit whenever the log holds more stamped copies, ignoring live work in the segment", props,
			func(h *Hooks) { h.ServeIgnoringLiveWork = true }, by("kernelprops/emit-serving-model"), "S3.emit.serve-append", "S3.emit.serve-skip"),
		h("reruns-completed-steps", "re-invokes the effect of a completed step on replay", props,
			func(h *Hooks) { h.RerunCompletedSteps = true }, by("kernelprops/effects-per-start", "kernelprops/replay-appends-nothing"),
			"S2.execute.served-not-rerun", "S3.resume.rerun-served"),
		h("never-stamps", "appends every emit unstamped", props,
			func(h *Hooks) { h.NeverStamp = true }, by("kernelprops/emit-once", "kernelprops/legacy-log", "kernelprops/emit-serving-model"), "S3.emit.once", "S3.emit.stamp", "S3.emit.legacy-log"),
		h("lossy-snapshot", "saves snapshots without _resumePayloads", props,
			func(h *Hooks) { h.LossySnapshot = true }, by("kernelprops/snapshot-equivalence"), "S3.snapshot.equivalence", "S4.snapshot.every-k", "S1.G1.preserve-p2-p9"),
		h("budget-present-writes", "a present but empty Budget records RESOURCE_METERED before every live step", props,
			func(h *Hooks) { h.BudgetPresentWrites = true }, by("kernelprops/g2-unwired"), "S1.G2.unwired-byte-identical"),
		h("shared-parallel-emit-count", "the branches of a parallel advance one shared per-digest emit count", props,
			func(h *Hooks) { h.SharedParallelEmitCount = true }, by("kernelprops/emit-serving-model"), "S3.emit.never-timing", "I-KERNEL-18"),
		h("normalizes-own-snapshots", "reads its own snapshots through normalizeSnapshotState, upgrading them to the current profile", props,
			func(h *Hooks) { h.NormalizeOwnSnapshots = true }, by("kernelprops/snapshot-equivalence"), "S3.snapshot.equivalence", "I-KERNEL-24", "S1.G1.preserve-p2-p9"),
		h("compacted-folds-tail-only", "reads a compacted log without its snapshot: the remaining envelopes are folded as the whole log", "reference/lifecycle:TestCompactedResumeRejectsTailOnlyFold",
			func(h *Hooks) { h.CompactedFoldsTailOnly = true }, by("lifecycle/compacted-resume"), "I-LIFECYCLE-10", "S3.snapshot.equivalence"),
		h("reruns-typed-failures", "a recorded typed failure is not substituted on replay: the step runs again", own,
			func(h *Hooks) { h.RerunTypedFailures = true }, by("kernel/TypedFailureRecordedAndSubstituted", "kernel/SameStepIDServedLive"),
			"S41.typed.replay-substitution", "S41.typed.same-id-live"),
		h("serves-untyped-failures", "a recorded untyped failure is served on replay instead of re-executed", own,
			func(h *Hooks) { h.ServeUntypedFailures = true }, by("kernel/UntypedFailureReexecuted"), "S41.typed.untyped-at-least-once"),
		h("effect-error-map-wins", "the effect's error map is used even when the step declares its own", own,
			func(h *Hooks) { h.EffectErrorMapWins = true }, by("kernel/TypedFailureStepLevelWins"), "S41.typed.step-wins"),
		h("typed-cap-32k", "typed failure payloads up to 32 KiB are recorded", own,
			func(h *Hooks) { h.TypedCap32K = true }, by("kernel/TypedFailureDegradesLoudly"), "S41.typed.cap-16k"),
		h("typed-skips-schema", "a typed payload is recorded without its channel's schema check", own,
			func(h *Hooks) { h.TypedSkipSchema = true }, by("kernel/TypedFailureStepLevelWins"), "S41.typed.validate-before-append"),
		h("degrades-quietly", "a degraded typed failure is recorded without a warning", own,
			func(h *Hooks) { h.DegradeQuietly = true }, by("kernel/TypedFailureDegradesLoudly"), "S41.typed.degrade-loudly"),
		h("typed-recorded-untyped", "a typed failure is recorded as a plain STEP_FAILED, without channel and payload", own,
			func(h *Hooks) { h.TypedRecordedUntyped = true }, by("kernel/TypedFailureRecordedAndSubstituted"),
			"S41.typed.record", "S4.v1_17.typed-failure-fields", "S41.typed.replay-substitution"),
		h("meter-zero-fill", "RESOURCE_METERED carries 0 for every dimension not measured", own,
			func(h *Hooks) { h.MeterZeroFill = true }, by("kernel/ResourcesMeteredAndBudget"), "S8.resources.no-false-zeros"),
		h("meter-not-logged", "metered usage is counted in memory but never appended", own,
			func(h *Hooks) { h.MeterNotLogged = true }, by("kernel/ResourcesMeteredAndBudget"), "S8.resources.metered-per-effect"),
		h("admission-ignored", "a spent budget never refuses a live effect", own,
			func(h *Hooks) { h.AdmissionIgnored = true }, by("kernel/ResourcesMeteredAndBudget"), "S8.budget.quota-exceeded"),
		h("negotiate-recomputed", "negotiateBudget recomputes its grant on every run instead of recording it", own,
			func(h *Hooks) { h.NegotiateRecomputed = true }, by("kernel/ResourcesMeteredAndBudget"), "S8.budget.negotiate"),
		h("wakeat-not-logged", "a timed park's wakeAt goes to the TimerStore only, not into the log", own,
			func(h *Hooks) { h.WakeAtNotLogged = true }, by("kernel/TimersFireAfterRestart"), "S5.timer.time-in-log", "S5.timer.durable-wakeat"),
		h("wakeat-relative", "a derived wakeAt is the timeout alone, not now + timeout", own,
			func(h *Hooks) { h.WakeAtRelative = true }, by("kernel/TimersFireAfterRestart"), "S5.timer.derive-wakeat"),
		h("timers-not-scheduled", "a timed park schedules nothing in the TimerStore, so no wake-up survives a restart", own,
			func(h *Hooks) { h.TimersNotScheduled = true }, by("kernel/TimersFireAfterRestart"), "S5.timer.durable-wakeat"),
		h("correlation-dropped", "suspend records no correlationKey", own,
			func(h *Hooks) { h.CorrelationDropped = true }, by("kernel/SuspendConfigAndRouting"), "S5.suspend.config"),
		h("correlation-required", "suspend without a correlationKey is refused", own,
			func(h *Hooks) { h.CorrelationRequired = true }, by("kernel/SuspendConfigAndRouting"), "S5.resume.correlation-not-required"),
		h("human-no-condition", "a human step parks without condition.stepId", own,
			func(h *Hooks) { h.HumanNoCondition = true }, by("kernel/HumanStepConsumesEntriesInOrder"), "S5.human.condition-stepid"),
		h("human-keeps-entry", "a completed human step does not consume its _resumePayloads entry on replay", own,
			func(h *Hooks) { h.HumanKeepsEntry = true }, by("kernel/HumanStepConsumesEntriesInOrder"), "S5.ingress.human-step-entry", "S5.replay.gates-in-order"),
		h("run-writes-kind", "run records kind \"agent\" instead of being the plain alias of execute", own,
			func(h *Hooks) { h.RunWritesKind = true }, by("kernel/KindsResolveByToolID"), "S2.run.alias"),
		h("resolve-by-kind", "an effect is looked up by the task's kind instead of its toolId", own,
			func(h *Hooks) { h.ResolveByKind = true }, by("kernel/KindsResolveByToolID"), "S2.execute.kinds-by-toolid"),
		h("stamps-regardless-of-count", "an appended emit is stamped even when it does not exceed the logged count", props,
			func(h *Hooks) { h.StampRegardless = true }, by("kernelprops/emit-serving-model"), "S3.emit.stamp-exceeds-count"),
		h("stamps-kernel-facts", "kernel facts emitted by the flow are stamped like any emit", own,
			func(h *Hooks) { h.StampKernelFacts = true }, by("kernel/WorkedExample11NeverStamped"), "S3.emit.kernel-facts-unstamped"),
		h("stamps-unmatchable", "an emit whose payload has no JSON form is stamped", own,
			func(h *Hooks) { h.StampUnmatchable = true }, by("kernel/WorkedExample9UnmatchablePayload"), "S3.emit.unmatchable-unstamped"),
		h("stamps-wrong-digest", "the flowEmit stamp is not the emit's digest", own,
			func(h *Hooks) { h.StampWrongDigest = true }, by("kernel/WorkedExample1FreshRun"), "S3.emit.stamp"),
		h("digest-ignores-segment", "the emit digest is computed as if every emit were in segment 0, so emits are served across gates", props,
			func(h *Hooks) { h.DigestIgnoresSegment = true }, by("kernelprops/emit-serving-model"), "S3.emit.segment", "S3.emit.residual"),
		h("decisions-recomputed", "a recorded decision is decided again on replay instead of served from the log", own,
			func(h *Hooks) { h.DecisionsRecomputed = true }, by("kernel/WorkedExample2ResumeServesSegmentZero"), "S1.P9.decision-logged"),
		h("wave2-unflagged", "continueAsNew, receive and select work without their feature flags", own,
			func(h *Hooks) { h.Wave2Unflagged = true }, by("kernel/ZeroConfigEnablesNothingOptional", "kernel/SyscallsUnknownAndDisabled", "kernel/fuzz-call"),
			"S2.syscalls.wave2-flagged", "S1.G2.opt-in", "S1.P10.minimal-kernel", "S2.syscalls.available-iff-listed"),
		h("advertises-all", "the runtime advertises every syscall of the table, flags or not", own,
			func(h *Hooks) { h.AdvertiseAll = true }, by("kernel/AdvertisedSyscallsMatchRuntime"),
			"S2.syscalls.available-iff-listed", "S2.syscalls.no-version-inference", "S2.syscalls.wave2-flagged"),
		h("no-fence", "a driver takes no fence, so a zombie worker's late appends are not fenced off", own,
			func(h *Hooks) { h.NoFence = true }, by("kernel/RedispatchFencesZombie"), "S6.fencing.zombie", "I-KERNEL-20"),
		h("sticky-workers", "only the worker that started an execution may drive it: another worker's Recover is refused", own,
			func(h *Hooks) { h.RecoverRefused = true }, by("kernel/RedispatchFencesZombie"), "S6.dispatch.stateless-workers", "S6.resume.is-migration"),
		h("snapshot-in-log", "Snapshot also appends a SNAPSHOT_TAKEN event to the log", own,
			func(h *Hooks) { h.SnapshotInLog = true }, by("kernel/ReplayFromSnapshotSameState"), "S3.snapshot.out-of-band"),
		h("decision-serves-entry", "a replayed decision serves its whole entry (choice, context, policy, seq), not the choice", own,
			func(h *Hooks) { h.DecisionServesEntry = true }, by("kernel/DecideServesChoiceOnly"), "S4.v1_18.getdecision-choice-only", "S4.v1_24.seq-descriptive"),
		h("sha256-flowhash-unflagged", "new starts record a sha256: flowHash without the sha256FlowHash feature", own,
			func(h *Hooks) { h.Sha256FlowHash = true }, by("kernel/StartRecordsHashes"), "S4.v1_23.flowhash-sha256"),
		h("migrated-dropped", "a resumeAs moves the execution onto the target flow without recording EXECUTION_MIGRATED", own,
			func(h *Hooks) { h.MigratedDropped = true }, by("kernel/ResumeAsTransformRecorded"), "S6.migrated.verdict", "S5.resumeas.transform-recorded"),
		h("legacy-entries-skipped", "a pre-ingress log is not replayed as written: entries that answered no suspend point are skipped", own,
			func(h *Hooks) { h.LegacyEntriesSkipped = true }, by("kernel/LegacyResumeEntryReplayedAndWarned"), "S5.ingress.legacy-as-written"),
		h("resumeas-runs-source", "resumeAs records the migration but re-runs the source flow", own,
			func(h *Hooks) { h.ResumeAsRunsSource = true }, by("kernel/ResumeAsTransformRecorded"), "I-KERNEL-15"),
		h("authorizer-skips-resumeas", "the execution authorizer is not consulted on a resumeAs", own,
			func(h *Hooks) { h.AuthorizerSkipsAs = true }, by("kernel/AuthorizerSeesResumeAs"), "I-KERNEL-51", "S5.resumeas.parked-all-rules"),
		h("resources-run-only", "EffectContext.resources shows only this run's metering, not the execution's totals", own,
			func(h *Hooks) { h.ResourcesRunOnly = true }, by("kernel/EffectReadsExecutionResources"), "S8.resources.metered-per-effect"),
		h("routes-by-correlation-key", "a resume goes to the first execution parked on the same gate with the addressed one's correlationKey, not to the execution it names", own,
			func(h *Hooks) { h.RouteByCorrelation = true }, by("kernel/SuspendConfigAndRouting"), "S5.resume.by-execution-id"),
		h("gate-opt-in", "with no authenticator wired a resume skips the ingress gate: the caller's event and an EXECUTION_RESUMED are appended as sent", own,
			func(h *Hooks) { h.GateOptIn = true }, by("kernel/ResumeRefusalsAppendNothing"), "S5.ingress.always"),
		h("verdict-without-fact", "an in-doubt verdict decision is honoured with no EFFECT_INDOUBT for its step and attempt beside it", own,
			func(h *Hooks) { h.VerdictWithoutFact = true }, by("kernel/VerdictWithoutInDoubtFactIgnored"), "S5.decide.verdict-beside-indoubt"),
		h("meter-dimension-renamed", "RESOURCE_METERED names the tokens dimension tokenCount", own,
			func(h *Hooks) { h.MeterDimensionNames = true }, by("kernel/ResourcesMeteredAndBudget"), "S8.resources.dimensions"),
		h("drops-code-hash", "omits EXECUTION_STARTED codeHash", golden, func(h *Hooks) { h.DropCodeHash = true }, goldens, replay),
		h("reverses-parallel-results", "returns a parallel's branch results in reverse order", golden, func(h *Hooks) { h.ReverseParallelResults = true }, goldens, replay, "S3.determinism.enforced"),
		h("drops-decision-context", "records DECISION_RECORDED without its context", golden, func(h *Hooks) { h.DropDecisionContext = true }, goldens, replay),
		h("forgets-resumes-on-resumeas", "re-runs a resumeAs without the recorded _resumePayloads", golden, func(h *Hooks) { h.ForgetResumesOnResumeAs = true }, goldens, replay),
		h("emit-segment-skew", "digests flow emits one segment ahead", golden, func(h *Hooks) { h.EmitSegmentSkew = true }, goldens, replay),
		h("decision-seq-in-payload", "at profile 1.24.0 and later, writes the folded seq into the DECISION_RECORDED payload", golden,
			func(h *Hooks) { h.DecisionSeqInPayload = true }, by("goldens/HookMutantsFailCheck", "goldens/V124EventBytesUnchanged"), replay, "S4.v1_24.wire-unchanged"),
		h("retry-same-attempt", "records a re-run of a failed step with its previous attempt number", golden, func(h *Hooks) { h.RetrySameAttempt = true }, goldens, replay),
		h("sleep-relative", "records sleep's duration alone as its wakeAt, relative to nothing", golden, func(h *Hooks) { h.SleepRelative = true }, goldens, replay),
		h("parallel-last-failure", "a failed parallel names its last failing branch, not its first", "kits/kernelkit:TestBrokenKernelsRejected",
			func(h *Hooks) { h.ParallelLastFailure = true }, by("kernel/parallel/error-paths"), "I-WIRE-11"),
		h("serve-degraded-typed", "a degraded typed failure is served on replay as the typed failure it degraded from", golden, func(h *Hooks) { h.ServeDegradedTyped = true }, goldens, replay),
	}
}

// Mutants registers every Hooks mutant of the reference kernel, and the kernel source that
// places executions on a cloud provider's API (TestPlacementCarriesNoProviderLogic).
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	for _, hm := range hookMutants() {
		out = append(out, hm.m)
	}
	return append(out, spec.Mutant{ID: "kernel-source/placement/cloud-sdk", Kind: "kernel-source",
		Defect:  "a kernel source file places executions through a cloud provider's SDK (ECS) instead of the dispatcher seam",
		Clauses: []string{"S6.placement.kernel-concern"}, CaughtBy: []string{"kernel/PlacementCarriesNoProviderLogic"},
		Where: "reference/kernel:TestPlacementCarriesNoProviderLogic"})
}

// MutantHooks returns the Hooks that build the registered mutant id, and whether id is one.
func MutantHooks(id string) (Hooks, bool) {
	for _, hm := range hookMutants() {
		if hm.m.ID == id {
			var h Hooks
			hm.set(&h)
			return h, true
		}
	}
	return Hooks{}, false
}
