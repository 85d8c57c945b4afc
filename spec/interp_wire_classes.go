package spec

// wireClassInterpretations lists the interpretation clauses of what a kernel returns that no check
// read until a kernel written from docs/wire.md alone was certified with it wrong (ids I-WIRE-60
// to I-WIRE-69). Each clause's Note says what was open and what we decided.
func wireClassInterpretations() []Clause {
	const adr = "ADR 0026"
	return []Clause{
		interp("I-WIRE-60", adr, Must, "execution.getState answers the folded state twice, as a value (state) and as text (canonical), and the text is the canonical JSON docs/vectors.md defines of that value, byte for byte: object keys sorted by UTF-16 code units, no insignificant whitespace, strings escaped only where JSON requires (non-ASCII written as itself), numbers in the shortest form that reads back as the same double; its top-level sequence is the sequence of the log's last envelope, which is the state's own sequence",
			"docs/wire.md defined canonical as the canonical JSON text of the state, but no check read it, so a kernel sorting keys by code point, escaping non-ASCII or answering its language's default encoding was certified, and so was one whose top-level sequence counted envelopes instead of naming the last. A client compares states by these bytes (that is why they are sent as text), so the bytes are the contract, as in the fold vectors.").protocol(),
		interp("I-WIRE-61", adr, Must, "a step id (syscall.execute's task.id, syscall.run's stepId) is the caller's string, compared and recorded byte for byte: a kernel never normalises it (NFC or otherwise), so two ids that differ only in their Unicode normal form name two steps, each recorded with the id its call gave",
			"Spec §2 identifies a step by the id its caller gives, and the fold keys frames by the id's exact string; a kernel in a language whose strings normalise on the way in (or one that normalises to compare) merges two steps a flow keeps apart and records an id the flow never wrote, so a replay of the log by another kernel no longer meets its own calls.").protocol(),
	}
}
