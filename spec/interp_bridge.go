package spec

// bridgeInterpretations lists the interpretation clauses of the bridge area (ids I-BRIDGE-n). Each clause's Note says
// what the spec leaves open and what we decided.
func bridgeInterpretations() []Clause {
	const s7, s10 = "§7", "§10"
	return []Clause{
		interp("I-BRIDGE-1", s7, Must, "a store bridge answers bridge.handshake with the protocol version, the implementation's name and version, and per seam the SPI version it claims and every method it implements; it is certified against exactly that claim",
			"Spec §7 says a third-party implementation runs a conformance kit to prove alignment but not how a store outside the kernel's language is reached. We carry every SPI method over JSON-RPC 2.0 (docs/bridge.md, ADR 0026's choice of carrier) and let the handshake state the claim, so the certificate names what was claimed and the kits skip only what was not.").protocol(),
		interp("I-BRIDGE-2", s7, Must, "every method a handshake declares is answered (never method-not-found); a method the handshake does not declare is never called and counts as not implemented",
			"Spec §7 lets an implementation omit optional methods and the kit skip them. Over a wire the omission must be stated up front; a bridge that declares a method and then does not answer it has misstated its claim, which is a failure, not a skip.").protocol(),
		interp("I-BRIDGE-3", s7, Must, "typed SPI errors cross the bridge as documented JSON-RPC error codes (conflict -32001, fenced -32002, not found -32003, already exists -32004, invalid argument -32005, unsupported -32006) with their details, and come back as the same typed errors",
			"The spec names outcomes a caller must tell apart (a lost optimistic append, a fenced zombie, a refused argument) but no wire encoding. Fixed codes keep errors.Is working on the client and let a foreign bridge be checked for the right refusal, not just any error.").protocol(),
		interp("I-BRIDGE-4", s7, Must, "every bridge message matches its JSON Schema (wire/bridge/schema), checked strictly on every response; payload, metadata and snapshot state travel as JSON values, so a value that is not JSON is refused by the client as an invalid argument without a call",
			"The envelope is the on-disk ABI (spec §4) and must round-trip value-exactly; a wire that re-encodes values could hide a store's defects or invent some. Strict schemas make a malformed answer a clear protocol failure instead of a silent misreading; text that is not JSON cannot be carried by a JSON wire at all, which is a limit of the carrier, not of the store.").protocol(),
		interp("I-BRIDGE-5", s7, Must, "when a caller abandons a write over the bridge (its context ends), the client still waits for the bridge's answer, up to the call timeout, so the write's outcome is settled when the call returns",
			"A remote store cannot be interrupted mid-write from the client: a write the client gave up on may still land later. Go callers and the kits assume that once Append returns, whatever it did is visible; waiting for the answer keeps that true over the wire (reads return at once).").protocol(),
		interp("I-BRIDGE-6", s10, Must, "a certification run always finishes: a link failure (refused or cut connection, timeout, crash of the bridge) makes the affected checks unknown, never pass or fail; a protocol breach (malformed JSON, schema mismatch, misstated handshake) is a failure; the target is certified only when every MUST check passes",
			"Spec §10 asks for executable checks a third party runs, and a verdict is only useful if it never hangs and never blames the store for the network. Unknown is not a pass: it keeps the run from certifying (exit non-zero) while saying the store was not judged.").protocol(),
		interp("I-BRIDGE-7", s7, Must, "under connection cuts and pauses of the store, every acknowledged append stays stored, and a batch whose append was interrupted lands whole or not at all",
			"Spec §4 makes the log the durable on-disk ABI and the atomic batch (I-STORE-2) is ours; faults between client and store are where both are lost in practice, so `certify --faults` injects them in the middle of a workload and checks what the store kept.").consequence(`§6 "state is durable"`),
		interp("I-BRIDGE-8", s10, Must, "an expected-failures ledger is kept true: a failure it does not list fails the run, a listed check that passes fails the run, and an entry past its expiry fails the run",
			"A store author may ship with known defects (DESIGN §6) but the certificate must not drift from reality: stale entries would hide regressions or fixed bugs equally.").protocol(),
		interp("I-BRIDGE-9", s7, Should, "a bridge answers a malformed request with the JSON-RPC 2.0 error for it (-32700 not JSON, -32600 not a request object or a batch, -32602 params not matching the schema) and keeps serving",
			"JSON-RPC 2.0 defines these codes; the bridge protocol never sends batches, so a bridge need not support them. A bridge that crashes on bad input would take a certification run down with it, so we check it answers and survives.").protocol(),
	}
}
