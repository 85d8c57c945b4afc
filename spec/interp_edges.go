package spec

// storeEdgeInterpretations are the store-area interpretations (I-STORE-50…) of the edge cases a
// bridge author asks about; docs/spi.md "Edge cases" is their prose.
func storeEdgeInterpretations() []Clause {
	const s6, s7 = "§6", "§7"
	return []Clause{
		interp("I-STORE-50", s7, Must, "an append or appendIfUnchanged wrong in several ways is refused by the first that applies of: invalid argument (empty id, negative or non-dense sequences, a payload that is not JSON), fenced (a stale token), conflict (a stale anchor, then a taken sequence); an empty batch is refused the same way and otherwise succeeds writing nothing; a negative first sequence is an invalid argument, never a conflict",
			"Spec §7 names the refusals but not their precedence, and a caller retrying on conflict must not retry a call that can never succeed or that a newer owner fenced. Checking what needs no state first, then ownership, then the log's position, is what the reference stores do and what lets a zombie learn it is fenced before it learns anything about the log.").choice("invalid argument, then fenced, then conflict (a stale anchor, then a taken sequence)", "another order of the refusals"),
		interp("I-STORE-51", s6, Must, "after deleteExecution every fence token acquired before is stale, and the next acquireFence returns a token no earlier fence had (greater than every one before, I-STORE-100's choice), under which the new incarnation is written; the current token right after the delete is held by no one (whether an unfenced append is accepted then is I-STORE-67's)",
			"Spec §6 fences a zombie predecessor (K9.4) and lets an execution be deleted and recreated, but does not say what the fence is in between. Never giving out an earlier token again across the delete means a worker that owned the old incarnation can never write into the new one; that the new token is also greater is our choice (I-STORE-100).").consequence(`§6 "fencing (K9.4) fences a zombie predecessor"`),
		interp("I-STORE-52", s7, Must, "copyPrefix refuses, in order: ids that are empty or equal, a through outside the source log or a source prefix no longer stored (invalid argument), then a target whose log was ever written (already exists), even when deleteThrough emptied it; only deleteExecution makes an id a fresh target again",
			"Spec §7 says copyPrefix writes a fresh branch and deleteThrough trims a log, but not how the two meet. A target emptied by deleteThrough still has a position (its next sequence) and may have readers; treating it as fresh would let a copy rewrite sequences someone already read. Argument errors come first because they never depend on the store's state.").choice("invalid arguments first, then a target whose log was ever written is already-exists, even when deleteThrough emptied it", "take a target that deleteThrough emptied as fresh", "another order of the refusals"),
		interp("I-STORE-53", s7, Must, "the sequences of one archiveStore.append are strictly increasing (gaps allowed); a duplicate or out-of-order sequence in one call is an invalid argument and nothing of the call is archived",
			"Spec §7 archives removed ranges, which need not be dense, but says nothing of one call repeating a sequence. Two envelopes at one sequence in one call cannot both be archived, and picking one silently would lose the other.").choice("refuse a repeated or out-of-order sequence in one call as an invalid argument, archiving nothing", "archive a call's envelopes in sequence order whatever their order in the call, refusing only a repeated sequence"),
		interp("I-STORE-54", s7, Must, "a branch always names a parent id (non-empty, not itself) and a forkSequence >= 0; the registry does not check that the parent is registered or written, nor that forkSequence lies within the parent's log: that is the caller's (copyPrefix's) business",
			"Spec §7's branch registry records lineage; it has no access to the event store, and a root execution is a parent without being a branch. Refusing an unknown parent would make registration order matter across two stores that are written separately.").choice("check only the branch's own fields (a parent that is not itself, a forkSequence >= 0)", "also refuse a branch whose parent is not registered or written"),
		interp("I-STORE-55", s7, May, "a single-process store may declare storeNow; its clock is then the one clock of every writer using it, held to the same unit and monotonicity checks as any other",
			"Spec §7 motivates storeNow with a fleet sharing a database clock, which a single-process store does not have, but nothing forbids it; the reference memory and SQLite stores declare it only when given a clock (I-STORE-23).").choice("a single-process store may declare storeNow, held to the same checks as any other", "a single-process store omits storeNow"),
	}
}

// bridgeEdgeInterpretations are the bridge-area interpretations (I-BRIDGE-10…) a bridge author
// asks about; docs/bridge.md is their prose.
func bridgeEdgeInterpretations() []Clause {
	const s7 = "§7"
	return []Clause{
		interp("I-BRIDGE-10", s7, Must, "a request without an id (a JSON-RPC notification) is never executed: the harness never sends one, and a bridge answers it with -32600 or not at all, but never performs the call",
			"JSON-RPC 2.0 lets a server execute notifications without answering; a store call whose outcome nobody can learn breaks the kits' assumption that every write's outcome is settled when the call returns (I-BRIDGE-5), so the bridge protocol has no notifications.").protocol(),
		interp("I-BRIDGE-11", s7, Should, "the data of a conflict error is {executionId, expected, actual, reason?} with integer sequences; for a stale anchor expected is -1 and actual the next free sequence, and reason says the anchor is stale; data that does not decode is ignored by the client (the error code alone decides the verdict)",
			"Anchors are opaque strings while the conflict data of the other conflicts is about sequences. Carrying sequences everywhere keeps one data shape per code; since the code decides, a bridge that sends anchors as strings is not failed for it.").protocol(),
		interp("I-BRIDGE-12", s7, Must, "optional members are omitted, never null: envelope and branch metadata are absent when there is none, a snapshot's sealed is absent when false; payload and state, which may be any JSON value, may be null",
			"The JSON Schemas say so; the prose says it too so that a bridge author working from docs/bridge.md alone does not have to read the schemas.").protocol(),
	}
}
