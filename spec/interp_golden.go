package spec

// goldenInterpretations lists the interpretation clauses of golden-log replay (ids I-GOLDEN-n).
// Each clause's Note says what the spec leaves open and what we decided.
func goldenInterpretations() []Clause {
	const s3, s10, s1 = "§3", "§10", "§1"
	return []Clause{
		interp("I-GOLDEN-1", s10, Must, "a golden is a flow script and a driver script run on the reference kernel with sequential ids, a virtual clock and the branches of a parallel run one after another in branch order; its recorded log, state and action results must be reproduced byte for byte",
			"Spec §10 names golden-log replay as a gate but not what a golden holds or how a re-run is made comparable. Flows are data (loom-flowscript/1) so any implementation can run them; ids and time are injected so two runs are byte-comparable; and a parallel's branches, whose interleaving is timing, are ordered by the flow code itself (each still in its own branch context, so the kernel's parallel rules apply) so the log is a function of the scripts. A retry re-executes the same step id, so the kernel records the next attempt."),
		interp("I-GOLDEN-2", s3, Must, "when two runs are diffed, envelope id and timestamp are the only fields that may legitimately differ, and only they are masked (never for goldens, whose ids and clock are deterministic)",
			"Spec §3 requires a replay to fold identically but does not say which envelope fields are run-specific. An envelope id is assigned fresh per append and a timestamp reads a clock; every other member (type, sequence, payload, metadata, workflow and execution ids) is the execution's history. One rule, applied by diffRuns everywhere, keeps a diff of two real runs readable without hiding a difference in what happened."),
		interp("I-GOLDEN-3", s10, Must, "replayAsFixture replays every parked, completed or failed execution of a golden read-only and requires nothing appended, the same status and output, the same fold and no effect invoked; a continued or cancelled execution is compared by the re-run only",
			"Spec §3 says a re-run serves what the log answers; a read-only replay is the strongest form of that. continueAsNew and cancel end an execution by an act the read-only replay cannot repeat (the reference kernel treats a continueAsNew during a read-only replay as a divergence, and a cancelled execution has no park or result to reproduce), so those executions are held to the byte-for-byte re-run instead, which covers them fully."),
		interp("I-GOLDEN-4", s1, Must, "G2 behavioural: every golden re-run with each optional feature configured but unwired — a budget that caps nothing, an idle timer store, an idle snapshot store, every Wave 2 flag on, an emit observer, and any carrier that can be mounted on a runtime with no client — must write a byte-identical log; a timer store is not unwired for a flow with a timed suspend",
			"Spec §1 G2 asks for byte-identical behaviour with a capability unwired but not which configurations count as unwired. A feature is unwired for a golden when the golden never uses it; a timed suspend uses a wired timer store by design (spec §5 derives a durable wakeAt from it), so that variant does not apply to such goldens."),
	}
}
