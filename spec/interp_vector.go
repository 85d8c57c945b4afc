package spec

// vectorInterpretations lists the interpretation clauses of the vector area (ids I-VECTOR-n). Each clause's Note says
// what the spec leaves open and what we decided.
func vectorInterpretations() []Clause {
	const a26, s3, s4 = "ADR 0026", "§3", "§4"
	return []Clause{
		interp("I-VECTOR-1", a26, Must, "a fold vector is one JSON file (id, reason, clauses, profile, snapshot?, events, expect); a foreign fold passes it iff its answer is byte-identical to the canonical JSON of the expected state",
			"ADR 0026 (T2.3) asks for language-agnostic vectors, event logs in and expected folds out, without a format. We keep one vector per file with a stable id, a one-line reason and the clause ids it enforces, and compare canonical JSON bytes (DESIGN §3.3), because byte equality is the only equality every language can compute the same way. The harness does not re-canonicalise a foreign answer: printing canonical JSON (keys by UTF-16 units, JavaScript numbers) is part of what a fold port must get right. Canonical-JSON and digest vectors are two further kinds of the same format so a port can test its encoder and its emit digest (§3) on their own."),
		interp("I-VECTOR-2", a26, Must, "a foreign fold is one long-lived process answering one JSON line per request line on stdin/stdout; a vector without an answer in time, or whose process dies or breaks the protocol, is unknown and the process is restarted",
			"ADR 0026 says any client can run the vectors but not how a harness talks to a fold in another language. A line-delimited JSON protocol needs nothing but a JSON library and standard streams, and one process for the whole run keeps the cost per vector to a round trip. Unknown is neither pass nor fail, so the run goes on and still fails: a hang or crash is never reported as a pass and never stalls the run."),
		interp("I-VECTOR-3", s4, Must, "a vector may expect an error kind instead of a state: invalid-envelope, sequence, mixed-executions, invalid-snapshot (fold) or invalid-json (canonical); kinds are compared, messages never",
			"The spec defines the fold only over well-formed logs; I-FOLD-1 and I-FOLD-16 refuse the rest. Messages differ between languages, so a port is held only to refusing the same inputs for the same reason, named by a small closed set of kinds."),
		interp("I-VECTOR-4", s4, Must, "a vector's snapshot is read as written by the vector's profile; snapshotProfile names an older writer, and the snapshot is then read through normalizeSnapshotState for that writer",
			"Spec §4 requires pre-1.21 snapshots to be read through normalizeSnapshotState but a state carries no schema version (I-FOLD-13). The vector therefore says who wrote its snapshot, so the pre-1.21 and pre-1.26 normalisations and their documented exceptions are vectors a port can run."),
		interp("I-VECTOR-5", a26, Must, "a run passes only when every vector passes or is listed in the expected-failures ledger, no verdict is unknown, and every ledger entry is still true (it names an existing vector that still fails)",
			"A port in progress needs to run the vectors before it passes all of them, but a ledger that is not kept true hides regressions and fixes alike. An unknown verdict is never excused by the ledger, since it says nothing about the fold."),
		interp("I-VECTOR-6", s3, Must, "hand-written vectors take their expectation from the spec; generated vectors take it from the reference fold; canonical and digest expectations are what JavaScript computes",
			"The spec is the authority, so every fold clause has hand-written vectors whose expected states were derived by reading it. Generated vectors (the property kit's log generators, seeded, go generate) pin the reference's behaviour on realistic logs for ports: a difference there is a disagreement to investigate, not necessarily a port's defect. DESIGN §3.3 defines canonical JSON as what JSON.stringify prints with sorted keys, so those expectations are checked by running JavaScript itself."),
		interp("I-VECTOR-7", a26, Should, "--profile V runs the fold vectors of profile V only; canonical and digest vectors do not depend on a profile and always run",
			"A port that implements only the current schema must be able to run the vectors meant for it; the encoder and the digest are the same at every profile."),
	}
}
