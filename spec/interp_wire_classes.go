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
		interp("I-WIRE-62", adr, Must, "a kernel that takes a request holding an object that names a key twice, a string with bytes that are not UTF-8, or a number a double does not hold (I-NET-50 lets it) records the value as one of I-NET-50's readings — the last of the repeated key, U+FFFD for each invalid byte sequence, the nearest double or the number exactly as written — never another (the first of the repeated key, a dropped member, a cut string, a number rounded some other way); refusing the request records nothing",
			"I-NET-50 leaves a third-party kernel free to read such a request as JSON.parse does instead of refusing it, since the spec's own TypeScript kernel would. That freedom is the reading JSON.parse (and a lossless number reader) gives, not any reading: a kernel keeping the first of two keys records a value no reference reader would, so the same request means one thing to one kernel and another to the next, and a replay elsewhere meets a different log. The readings are fixed so that leniency never changes a caller's value silently in a way the spec's own kernel would not.").protocol(),
	}
}
