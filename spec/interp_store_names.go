package spec

// storeNameInterpretations are the rules for the names every seam is given (execution and branch
// ids, durable-state keys, content owners, read-model models and document ids, package ids): how
// long they may be, what characters they may hold, and what deleting a fenced id that holds no
// envelope answers. New ids come from I-STORE-80…99.
func storeNameInterpretations() []Clause {
	const s7, s6 = "§7", "§6"
	return []Clause{
		interp("I-STORE-80", s7, Must, "every seam takes, and keeps apart, names of up to 1 024 bytes of UTF-8 (spi.MaxIDBytes): execution and branch ids, durable-state keys, content owners, read-model models and document ids, package ids; a longer name may be refused as an invalid argument, but no name is ever cut, hashed by a prefix or otherwise merged with another",
			"The spec keys executions by a stable executionId (§2) and never bounds its length, so a store must pick a bound and a caller must know it. Key columns of 255 bytes (VARCHAR(255), MySQL's old index prefix) merge two long ids that share their first 255 bytes, which is the isolation I-STORE-4 forbids. 1 024 bytes is what every common backend holds in a key with room for a suffix (a DynamoDB sort key, a PostgreSQL or MySQL index entry, a FoundationDB key), and more than the kernel needs for an id plus a fork chain; stating it lets a store refuse what it cannot hold instead of merging it silently.").protocol(),
		interp("I-STORE-81", s7, Must, "a name (id, key, owner, model, document id, target, worker) is a string of Unicode scalar values: in Go valid UTF-8, over the bridge a JSON string whose \\u escapes never leave a surrogate unpaired; a call whose name holds a lone surrogate is refused as an invalid argument (bridge code -32602) and changes nothing, never stored under a replacement character",
			"The spec's ids are JavaScript strings, which may hold lone surrogates, while every store language but JavaScript either cannot hold one (Go, Rust and Python's UTF-8 strings, PostgreSQL text) or replaces it with U+FFFD, so \\uD800 and \\uDC00 would become one id. Refusing them at the edge keeps ids opaque byte strings (I-STORE-4) that every backend holds alike; payloads and states keep lone surrogates, since they are stored as JSON text (DESIGN §3.3).").protocol(),
		interp("I-STORE-82", s6, Must, "deleteExecution of an id that holds a fence but no envelope (fenced, never written) fences like any deleteExecution: every token acquired before it is stale, and the next acquireFence returns a token no earlier fence had; \"changes nothing\" (I-STORE-71) is about envelopes, and a fence is state",
			"I-STORE-51 makes every token acquired before a deleteExecution stale, and I-STORE-71 says deleting an id with nothing stored changes nothing; an id a worker fenced before writing its first envelope falls under both. A worker dispatched to an execution fences before it appends, so an execution deleted between the two would otherwise be recreated by the worker of the old incarnation under its old token, which is the zombie §6 fences. The fence is part of what the store holds for the id, so the delete fences it; only an id with neither envelopes nor a fence is one with nothing stored.").consequence(`§6 "fencing (K9.4) fences a zombie predecessor"`),
	}
}
