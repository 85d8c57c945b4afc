package spec

// manifestInterpretations lists the interpretation clauses of the manifest (ids I-MANIFEST-n).
func manifestInterpretations() []Clause {
	const sec = "§2, §4, §7"
	return []Clause{
		interp("I-MANIFEST-1", "§2", Must, "sleep and sleepUntil are dated ABI 1.1.0; continueAsNew, receive and select 1.3.0; the eight K1 syscalls 1.0.0",
			"The spec says the eight K1 syscalls form the original ABI, that T1 added sleep and sleepUntil, and that ABI 1.3.0 reserves the Wave 2 trio, but it never dates T1. We date sleep and sleepUntil 1.1.0, the first MINOR after the original set; no syscall is dated 1.2.0. The pin test holds these dates.").choice("sleep and sleepUntil at ABI 1.1.0", "sleep and sleepUntil at 1.2.0, the other MINOR between the original set and 1.3.0"),
		interp("I-MANIFEST-2", "§4", Must, "event kinds the spec does not date are recorded at the baseline schema 1.0.0",
			"The spec dates EVENTS_REHOMED (1.22.0), EXECUTION_CONTINUED and MESSAGE_CONSUMED (1.23.0) and the two INBOX_* kinds (1.25.0). It mentions audit facts added at 1.13.0/1.14.0 without naming them, and no other arrival version. Every other kind is recorded at 1.0.0 so the table never claims a date the spec does not give; the pin test fails on any change.").choice("record every kind the spec does not date at the baseline 1.0.0", "record them as undated"),
		interp("I-MANIFEST-3", sec, Must, "undated SPI methods are dated 1.0.0, and seams without a stated version are at 1.0.0",
			"The spec dates listExecutionsPage 1.2.0, acquireFenceIf 2.1.0, appendIfUnchanged 2.2.0 (incarnation rule 2.3.0), storeNow 2.4.0, sealingCapability 2.5.0, deleteThrough 2.6.0, loadLatestSealed 1.1.0, pruneSnapshots 1.2.0, listSequences 1.3.0 and ArchiveStore's optional methods 1.1.0. readRange, acquireFence, copyPrefix and the deleteExecution methods are undated and recorded at 1.0.0 (1.1.0 for ArchiveStore, whose two optional methods the spec dates together). BranchRegistry, ExecutionDispatcher, DurableStateStore and ReadModelStore have no stated version and are 1.0.0. BranchRegistry's methods (register, get, listChildren) and the dispatcher's (dispatch, targets) are our own shapes, since the spec names the seams but not their methods.").choice("record undated methods and seams at 1.0.0 (ArchiveStore's optional methods at 1.1.0)", "record them as undated"),
		interp("I-MANIFEST-4", sec, Must, "the wire method for syscall X is named syscall.X and inherits X's kind and feature flag",
			"ADR 0026 says the wire table is generated from the syscall table and partitioned unary vs channel, but gives no method names. We name them syscall.<name>; the carrier's execution.* methods are listed separately because they drive executions rather than project syscalls.").protocol(),
		interp("I-MANIFEST-5", "§4", Must, "the event-schema pin records each version with its type set and a note, and fails when either drifts without a new pin entry",
			"K5 requires the version and the set to change together, yet 1.15.0 to 1.21.0 bumped the version with no new kind. We read the rule as: a change of the type set requires a version bump, and any version bump requires a pin entry that records the set and says what changed, so neither can move silently.").consequence(`§10 "fail on undocumented drift"`),
	}
}
