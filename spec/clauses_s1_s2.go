package spec

// section1 holds the principles and guardrails (spec §1).
func section1() []Clause {
	const sec = "§1"
	return []Clause{
		s("S1.P2.replay-identical", sec, Must, "P2: folding a stored log reconstructs identical state every time"),
		s("S1.P2.fold-pure", sec, MustNot, "P2: the fold is a pure function; it reads no wall clock, randomness or ambient input"),
		s("S1.P9.decision-logged", sec, Must, "P9: a non-deterministic choice is recorded as DECISION_RECORDED and served from the log on replay, never recomputed"),
		s("S1.P10.minimal-kernel", sec, Must, "P10: the kernel carries mechanism only; policy lives above it and enforcement rings and optional runtimes are opt-in"),
		s("S1.G1.preserve-p2-p9", sec, Must, "G1: every additive capability preserves P2 and P9"),
		s("S1.G2.opt-in", sec, Must, "G2: every additive capability is opt-in"),
		s("S1.G2.unwired-byte-identical", sec, Must, "G2: with a capability unwired, behaviour and logs are byte-identical to the kernel without it (zero overhead)"),
	}
}

// section2 holds the execution model and the syscall ABI (spec §2, K1).
func section2() []Clause {
	const sec = "§2"
	return []Clause{
		s("S2.state.shape", sec, Must, "the folded ExecutionState has exactly status, frames, variables, sequence, startedAt, updatedAt; per-task lifecycle lives in frames"),
		s("S2.syscalls.versioned-set", sec, Must, "the syscall set is a versioned table (KERNEL_ABI_VERSION) pinned by a test"),
		s("S2.syscalls.wave2-flagged", sec, Must, "continueAsNew, receive and select are each available only behind their kernel feature flag"),
		s("S2.syscalls.available-iff-listed", sec, Must, "a syscall is available iff it is in the syscall table, which the wire handshake advertises beside the ABI version"),
		s("S2.syscalls.no-version-inference", sec, MustNot, "clients feature-detect against the advertised list and never infer a syscall from the ABI version"),
		s("S2.execute.served-not-rerun", sec, MustNot, "on replay a completed task is served from the log and its effect does not run again"),
		s("S2.run.alias", sec, Must, "run is the step-shaped alias of execute"),
		s("S2.execute.kinds-by-toolid", sec, Must, "task kinds resolve through the effect boundary by toolId while the wire events stay STEP_*"),
		s("S2.K1.add-minor", sec, Must, "K1: adding a syscall is a MINOR bump, recorded per syscall"),
		s("S2.K1.remove-major", sec, Must, "K1: removing or repurposing a syscall is a MAJOR break"),
		s("S2.K1.drift-fails", sec, Must, "K1: the ABI pin test fails on undocumented drift of the syscall set"),
	}
}
