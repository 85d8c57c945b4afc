package spec

// dispatchInterpretations lists the interpretation clauses of placement and dispatch (ids
// I-DISPATCH-n) and of deploy simulation (ids I-SIM-n). Each clause's Note says what the spec leaves
// open and what we decided.
func dispatchInterpretations() []Clause {
	const s6, s7, s5, s10 = "§6", "§7", "§5", "§10"
	return []Clause{
		interp("I-DISPATCH-1", s7, Must, "the ExecutionDispatcher seam has a placement side (dispatch, targets: required) and a worker side (claim, heartbeat, ack: optional, one Go interface) by which workers lease packages",
			"Spec §6/§7 name the seam, its kit and the WorkerRuntime (staged) but no methods. The manifest lists dispatch and targets as required; a worker needs a way to receive packages and to tell the dispatcher it is alive and done, so we add claim/heartbeat/ack as optional methods. A push-only dispatcher omits them and the kit skips the delivery checks, saying so."),
		interp("I-DISPATCH-2", s6, Must, "an ExecutionPackage is coordinates only: non-empty executionId and flowId, an optional target, optional hints that are a JSON object of at most 4 KiB; it is delivered value-exact with nothing added",
			"Spec §6 says the package carries coordinates (executionId, flowId, resume hints), never live code, but fixes no shape. A bound on hints and a rule that the dispatcher adds nothing keep state and code out of the package, so every worker must rebuild state from the shared stores."),
		interp("I-DISPATCH-3", s6, Must, "delivery is at least once: a package leased and not acked before its lease expires is delivered again (delivery count + 1, new token) to any worker serving its target; an acked package is never delivered again",
			"Spec §6 says re-dispatch after a worker dies resumes from the journal, not how the dispatcher learns of the death. A lease expiry is that signal; a package may therefore run twice, which replay (served steps, fencing) makes safe, while losing one would strand an execution."),
		interp("I-DISPATCH-4", s6, Must, "a live lease is exclusive; heartbeat extends it by the given TTL (1 ms .. 10 min); once expired a lease is dead for good: its heartbeat and ack are refused with lease-lost even if nobody re-claimed it",
			"The spec does not say how long a worker owns an execution. Leases with heartbeats let workers on many hosts share one queue. A dead lease stays dead so a paused worker learns it lost ownership; safety still rests on the store's fence (spec §6, K9.4), which a worker acquires after each claim."),
		interp("I-DISPATCH-5", s6, Must, "targets lists the registered compute targets ascending without duplicates; a package pinned to another target is refused with a typed unknown-target error naming it and nothing is queued; an empty target is unpinned and reaches any worker; a pinned one only workers serving it",
			"Spec §6 says a pinned computeTarget must resolve to a registered dispatcher target. We make the dispatcher itself refuse (so no path around verify exists) and unpinned executions placeable anywhere."),
		interp("I-DISPATCH-6", s6, Must, "packages of one execution are delivered one at a time in dispatch order: only the oldest unacked package of an execution is deliverable",
			"Two workers driving one execution at once would only fight over the fence; ordering per execution makes a resume hint dispatched after a start arrive after it."),
		interp("I-DISPATCH-7", s6, Must, "placement-compat is checked before an execution starts: a flow or deployment pinning a computeTarget the dispatcher does not list is refused naming the target (dispatch.VerifyPlacement, `loom-conform verify placement`)",
			"Spec §6 names the @loom/verify placement-compat rule without saying when it runs. Refusing at start (and in a deploy-time verify command) means nothing is appended for an execution that could never be placed."),
		interp("I-DISPATCH-8", s5, Should, "suspension-safety is reported by the same verify: a flow that makes a timed suspend (sleep, sleepUntil, suspend with timeout) on a runtime without a TimerStore is named, with the execution and gate",
			"Spec §5 says a timed suspend without a TimerStore is silently never woken, which suspension-safety reports, but not where. We surface the kernel's finding in the verify report beside placement, at SHOULD level: the flow is legal, only its wake-up is missing."),
		interp("I-SIM-1", s10, Must, "a deploy simulation is a pure function of (scenario, seed, workers): a virtual clock and one seeded source decide scheduling, delays, crashes and pauses, and a failure prints the one-line command that re-runs that seed",
			"Spec §10 gates replay-unchanged on deploy simulation without saying what one is. FoundationDB-style determinism makes every failure reproducible from its seed."),
		interp("I-SIM-2", s10, Must, "after every simulated run: no acknowledged event lost or duplicated, sequences dense, no at-most-once effect run twice, each flow-level emit appended as the serving rule says, fold(snapshot@k, tail) == fold(log) for every k, every execution ends completed/failed/cancelled or parked visibly (never running with no owner), and final states equal a single-worker run",
			"These are the invariants an operator planning a rolling upgrade relies on; each is a named check with its clause ids. Documented exceptions (the pre-1.21 snapshot shapes, legacy 1.23 decision entries, a pre-1.26 node re-adding a settled input) are classified, not failed."),
	}
}
