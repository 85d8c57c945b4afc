package spec

// wireInterpretations lists the interpretation clauses of the kernel wire ABI (ids I-WIRE-n). Each
// clause's Note says what ADR 0026 leaves open and what we decided.
func wireInterpretations() []Clause {
	const adr = "ADR 0026"
	return []Clause{
		interp("I-WIRE-1", adr, Must, "the kernel wire ABI is JSON-RPC 2.0 over HTTP POST with the store bridge's framing, limits and error codes; the kernel's own outcomes travel as -32020 step failed, -32021 typed failure, -32022 quota exceeded, -32023 refused, -32024 replay divergence, -32025 not runnable, -32026 syscall error, -32027 disabled, each with data.kind",
			"The ADR leaves the carrier open (JSON-RPC or gRPC) once the channel pair is partitioned. JSON-RPC over HTTP is what the store bridge already speaks, so a client author learns one framing; the kernel's outcomes need codes a client can branch on without parsing messages."),
		interp("I-WIRE-2", adr, Must, "besides execution.start, resume, getState and cancel, a carrier serves execution.attach (take or re-take the driver seat of an execution) and execution.complete (the driver returns the flow's output or error)",
			"Under A3 the client holds the flow logic, so the flow's return happens on the client; the four named methods cannot end an execution with an output or hand a parked or crashed execution to a new driver. Two methods close that gap without touching the on-disk schema."),
		interp("I-WIRE-3", adr, Must, "one driver at a time holds an execution, proved by a driver token; a second attach or a syscall with another token is fenced (-32002) with nothing appended; a driver silent past its lease may be replaced when it has no call in flight",
			"A3 asks how a second concurrent driver is refused. Two drivers interleaving syscalls would append a log no flow wrote; a token per seat makes the refusal explicit, and a lease keeps a vanished driver from holding an execution forever."),
		interp("I-WIRE-4", adr, Must, "a driver that reconnects with its token re-drives from the top: every call the live run already answered is answered again from the run's record, a call that differs is a replay divergence (-32024), and no effect runs twice",
			"A3 says the client re-drives after a resume but not what a client that lost its connection mid-step does. Re-driving from the top is the one rule the client already follows after a resume; serving the run's own answers makes it safe mid-run, where the log alone cannot tell a re-driven emit from a new one."),
		interp("I-WIRE-5", adr, Must, "a resume with no connected driver passes the ingress gate and is recorded; the run then waits for a driver, execution.getState shows status running, driver none, awaitingDriver true, and a driver attaching later (after a restart through recovery) re-drives it to the end",
			"A3 requires such a resume to park durably and visibly but names no mechanism. Recording it at once keeps it durable under every store; the state says who is missing, so an operator or a client sees the execution is waiting on a driver, not lost."),
		interp("I-WIRE-6", adr, Must, "bad input (not JSON, a batch, an unknown method, ill-typed or unknown params, an unknown execution, syscall arguments a syscall does not take, a caller that does not drive the execution) gets a typed JSON-RPC error naming the field, and nothing is appended",
			"The ADR makes the wire a trust boundary: a foreign client gains no bypass. Refusing unknown members keeps a client from smuggling envelope fields (metadata, a flowEmit stamp, a sequence) through a syscall."),
		interp("I-WIRE-7", adr, Must, "a channel syscall (stream, ui) has a unary form (one payload per call) and a streaming form: an NDJSON body, the request object on the first line and one chunk per line after, answered in NDJSON with one ack per chunk as it is appended and the response last",
			"A2 partitions stream and ui as channel semantics and lets them drive the transport choice without fixing a form. NDJSON over one HTTP request works with curl and any HTTP library and keeps each chunk an ordinary emit of the kernel."),
		interp("I-WIRE-8", adr, Must, "`certify kernel` holds a kernel served with the conformance profile (the fake tools echo, fail, meter, fetch, shape, forbidden; egress only to allowed.example; a 10-token budget) to the reference kernel's logs and folded states, ignoring envelope ids and timestamps and the state's startedAt/updatedAt; the check suite proves itself on broken kernels behind the same carrier",
			"The ADR's acceptance compares folds of the same flow, which only works when both kernels resolve the same tools under the same rings. Ids and clocks are the kernel's own choice; everything else must match."),
		interp("I-WIRE-9", adr, Must, "a ring refuses an effect kernel-side by recording its fact (EFFECT_DENIED, EGRESS_DENIED; QUOTA_EXCEEDED by admission control) and failing the step on a typed channel (effect-denied, egress-denied, output-invalid for an output failing its schema, the quota channel), so a re-run serves the refusal and never runs the effect",
			"T2.2 puts the rings kernel-side but does not say how a refusal reaches a wire client or a replay. Typed failures are what a re-run serves (spec §4.1), so a refusal is decided once and a client sees the same refusal every time."),
	}
}
