package spec

// section6 holds placement semantics (spec §6).
func section6() []Clause {
	const sec = "§6"
	return []Clause{
		s("S6.placement.kernel-concern", sec, Must, "placement is a kernel concern; cloud-provider logic stays out of the kernel"),
		s("S6.dispatch.coordinates-only", sec, Must, "an execution package carries only coordinates (executionId, flowId, resume hints), never live code"),
		s("S6.dispatch.stateless-workers", sec, Must, "any worker reconstructs state from the shared stores"),
		s("S6.resume.is-migration", sec, Must, "re-dispatch to any worker resumes from the journal"),
		s("S6.fencing.zombie", sec, Must, "fencing fences a zombie predecessor: a stale holder cannot write"),
		s("S6.migrated.verdict", sec, Must, "EXECUTION_MIGRATED records a cross-code migration verdict"),
		s("S6.placement.compute-target", sec, Must, "a pinned computeTarget resolves to a registered dispatcher target"),
	}
}

// section7 holds the SPI contracts (spec §7).
func section7() []Clause {
	const sec = "§7"
	return []Clause{
		s("S7.spi.versioned-kit", sec, Must, "each seam has a version constant and a conformance kit a third party runs"),
		s("S7.spi.optional-may-omit", sec, May, "an implementation may omit optional methods; the kit skips them"),
		s("S7.spi.semver", sec, Must, "an SPI version is semver: MINOR adds an optional method, MAJOR changes a required contract"),
		s("S7.es.no-fence-single-node", sec, May, "a store that omits acquireFence performs no fencing (single node)"),
		s("S7.es.read-range", sec, May, "EventStore may implement readRange"),
		s("S7.es.acquire-fence", sec, May, "EventStore may implement acquireFence"),
		s("S7.es.acquire-fence-if", sec, May, "EventStore may implement the conditional fence acquireFenceIf (SPI 2.1.0)"),
		s("S7.es.append-if-unchanged", sec, May, "EventStore may implement the conditional append appendIfUnchanged (SPI 2.2.0)"),
		s("S7.es.incarnation-anchor", sec, Must, "since SPI 2.3.0 the observation anchor differs between two incarnations of an execution id, even with byte-identical sequence-0 envelopes"),
		s("S7.es.incarnation-metadata-only", sec, MustNot, "the incarnation lives in store metadata only, never in an event"),
		s("S7.es.store-now", sec, May, "EventStore may report its own clock in epoch ms via storeNow (SPI 2.4.0); Postgres reports database time"),
		s("S7.es.store-now-fallback", sec, Must, "a caller facing a store without storeNow falls back to its injected clock"),
		s("S7.es.delete-through-atomic", sec, Must, "deleteThrough atomically deletes every event with sequence <= through, sequence 0 included (SPI 2.6.0)"),
		s("S7.es.delete-through-concurrent", sec, Must, "deleteThrough removes exactly through, so a concurrent append after it survives"),
		s("S7.es.delete-through-no-fallback", sec, MustNot, "a caller facing a store without deleteThrough refuses rather than falling back to deleteExecution"),
		s("S7.es.sealing-forwarded", sec, Must, "sealingCapability is declared and forwarded by every decorator; absent means the store seals and opens nothing (SPI 2.5.0)"),
		s("S7.es.sealing-sharded-agree", sec, Must, "a sharded store reports a sealing capability only when every shard agrees"),
		s("S7.es.quarantine-prefix-reserved", sec, Must, "the stream prefix __loom_quarantine__:<chainId> is reserved for control streams"),
		s("S7.es.copy-prefix", sec, May, "EventStore may implement copyPrefix"),
		s("S7.es.delete-execution", sec, May, "EventStore may implement deleteExecution"),
		s("S7.es.list-executions-page", sec, Should, "maintenance passes enumerate executions with the paged, bounded-memory listExecutionsPage (SPI 1.2.0)"),
		s("S7.ss.delete-execution", sec, May, "SnapshotStore may implement deleteExecution"),
		s("S7.ss.load-latest-sealed", sec, May, "SnapshotStore may implement loadLatestSealed (SPI 1.1.0)"),
		s("S7.ss.prune-range", sec, Must, "pruneSnapshots deletes exactly the range the caller decided is safe (SPI 1.2.0)"),
		s("S7.ss.list-sequences", sec, Must, "listSequences returns the stored sequences ascending, one per snapshot (SPI 1.3.0)"),
		s("S7.as.delete-execution", sec, May, "ArchiveStore may implement deleteExecution (SPI 1.1.0)"),
		s("S7.as.replace-segments", sec, May, "ArchiveStore may implement replaceSegments (SPI 1.1.0)"),
		s("S7.as.compact-archives-first", sec, Must, "compaction appends the exact envelopes it removes to the ArchiveStore before truncating, and refuses without one"),
		s("S7.as.not-read-on-replay", sec, MustNot, "readRange, replay and resume never read the archive"),
		s("S7.plugin.pinned", sec, Must, "plugin-tier SPIs (ContentStore with putStream outcome, owner and sealsContent; DurableStateStore; ReadModelStore with limit/cursor validation) are pinned with conformance kits"),
	}
}

// section8 holds resource semantics (spec §8).
func section8() []Clause {
	const sec = "§8"
	return []Clause{
		s("S8.resources.metered-per-effect", sec, Must, "resources are metered per effect as RESOURCE_METERED and folded into the fixed-size _resources accumulator"),
		s("S8.resources.dimensions", sec, Must, "dimensions are tokens, costUsd, ms and optional memBytes, wallMs, netBytes"),
		s("S8.resources.no-false-zeros", sec, MustNot, "a dimension is present only where an effect can measure it (no false zeros)"),
		s("S8.budget.may-cap", sec, May, "a Budget may cap any dimension"),
		s("S8.budget.quota-exceeded", sec, Must, "exceeding a budget raises QUOTA_EXCEEDED via admission control"),
		s("S8.budget.negotiate", sec, Must, "negotiateBudget resolves a bounded grant through the decision seam (recorded, replay-safe) and never enforces"),
	}
}

// section9 holds compatibility guarantees (spec §9).
func section9() []Clause {
	const sec = "§9"
	return []Clause{
		s("S9.manifest.from-constants", sec, Must, "the kernel manifest is built from the exported constants, so it cannot drift from them"),
		s("S9.compat.shared-major", sec, Must, "two versions are compatible iff they share a major version"),
		s("S9.compat.exit-nonzero", sec, Must, "the compat command exits non-zero on a mismatch (a deployment gate)"),
	}
}

// section10 holds conformance and continuous enforcement (spec §10).
func section10() []Clause {
	const sec = "§10"
	return []Clause{
		s("S10.pins.drift", sec, Must, "ABI and schema pins and the fold vectors fail on undocumented drift"),
		s("S10.kits.reference-impls", sec, Must, "the SPI conformance kits run against the in-memory and SQLite reference implementations"),
		s("S10.replay-unchanged", sec, Must, "golden-log replay and deploy simulation prove replay unchanged"),
		s("S10.g2.behavioural-and-ratio", sec, Must, "zero overhead is proven by disabled-path behavioural tests and a relative-ratio bench gate"),
		s("S10.badges.evidence", sec, Must, "a capability badge that claims evidence (version constant, conformance test, bench) it does not have fails"),
		s("S10.fitness.gated", sec, Must, "the fitness functions are enumerated with their enforcement location and gated in CI"),
	}
}

// adr0026 holds ADR 0026 (wire-level kernel ABI).
func adr0026() []Clause {
	const sec = "ADR 0026"
	return []Clause{
		a("A26.wire.projection", sec, Must, "the wire protocol is a versioned projection of the K1 syscall ABI, normative for wire clients only"),
		a("A26.wire.rings-kernel-side", sec, Must, "a wire client is subject to the same rings (authorize, meter, validate, egress) kernel-side; it gains no bypass"),
		a("A26.vectors.language-agnostic", sec, Must, "conformance is executable as language-agnostic fold vectors (event logs in, expected folds out) any client can run"),
		a("A26.wire.partition", sec, Must, "syscalls are partitioned unary vs channel (stream, ui)"),
		a("A26.wire.derived", sec, Must, "the wire method table is generated from the syscall table, never a hand list"),
		a("A26.wire.own-version", sec, Must, "the wire protocol carries its own version, beside the kernel ABI version"),
		a("A26.wire.no-new-facts", sec, MustNot, "the wire ABI adds no durable facts; the on-disk schema is unchanged"),
		a("A26.wire.unwired-identical", sec, Must, "with no wire clients behaviour is byte-identical; in-process callers pay no wire tax"),
		a("A26.wire.kernel-authoritative", sec, Must, "the kernel folds and stays authoritative; the client re-drives flow logic after resume, and a resume with no connected driver parks durably and visibly"),
		a("A26.carrier.methods", sec, Must, "a carrier drives executions with execution.start, resume, getState and cancel"),
		a("A26.acceptance", sec, Must, "a minimal non-TypeScript client starts, suspends, resumes and replays an execution with ring verdicts enforced kernel-side and the fold byte-identical to an in-process run"),
	}
}
