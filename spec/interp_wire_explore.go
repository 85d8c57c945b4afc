package spec

// wireExploreInterpretations lists the interpretation the kernel kit's differential flow
// exploration (kernel/explore) enforces as a whole.
func wireExploreInterpretations() []Clause {
	return []Clause{
		interp("I-WIRE-80", "ADR 0026", Must, "every flow script of the golden grammar (loom-flowscript with its loom-driver) that a kernel's handshake lets a client drive runs over the wire as it runs on the reference kernel in process: each execution's log and folded state are the in-process run's as values (envelope ids and clock fields aside), up to the choices the kernel kit aligns, and execution.getState's canonical is byte for byte the canonical JSON (DESIGN §3.3) of that state; a difference is a failure of the clauses of the statement or driver action that wrote what differs",
			"ADR 0026 makes the in-process kernel the authority of what a run records and I-WIRE-10 makes a flow script the unit that crosses the wire, but the checks only drive the scripts someone wrote; defects nobody listed (a budget enforced on one dimension, a join naming the last failing branch, a normalised step id) pass them. Any script the grammar allows is a golden the kernel owes: generated at random from a seed, compared as the goldens are, shrunk to a minimal script on a difference. The canonical text is compared as bytes against the canonical JSON of the kernel's own state, so the comparison never blames a clock field the runs legitimately differ in. The other members of execution.getState, read between driver actions, are held to I-WIRE-60 and I-WIRE-63 against the kernel's own state and log, which is what the reference's getState gives from the same ones; a start input that names a key twice is compared with the run of its last-key reading, a refusal being I-NET-50's other option (I-WIRE-62).").protocol(),
	}
}
