package spec

// bridgeSeamInterpretations answer what a bridge that serves the plugin-tier seams or the
// dispatcher meets and the other bridge clauses leave open: null and fractional params, which
// refusal wins on those seams, and whether state must survive a restart. docs/bridge.md is their
// prose.
func bridgeSeamInterpretations() []Clause {
	const s7 = "§7"
	return []Clause{
		interp("I-BRIDGE-13", s7, Should, "an optional param is absent or has its type: null is not absence (a null ifVersion, hints, cursor, fence or owner breaks the method's schema, -32602, and changes nothing, so a null ifVersion is never read as an unconditional write); certify sends integers in their plain spelling and does not judge how a bridge reads another one (JSON Schema counts 2.0 as the integer 2; a bridge may accept it or refuse it as invalid params)",
			"I-BRIDGE-12 says a bridge omits optional members rather than sending null; the same schemas hold for what a bridge receives. Reading null as absence would turn a caller's mistaken conditional write into a blind overwrite, the one reading that loses data. Integer spellings are left open because certify never sends them and languages disagree on them.").protocol(),
		interp("I-STORE-56", s7, Must, "on the branch registry, the plugin-tier seams and the dispatcher, as on the event log (I-STORE-50), a call wrong in several ways gets invalid argument first (nothing about the store's state is needed to see it), and only then the refusal that depends on state: a branch id already registered, a durable-state conflict, content not found, an unknown target, a lost lease",
			"The spec names these refusals without their precedence. Checking what needs no state first gives a caller the same answer whatever the store holds, so a malformed call is never retried as if it had lost a race or met a dead lease.").choice("invalid argument first, then the refusal that depends on the store's state", "another order of the refusals"),
		interp("I-PLUGIN-16", s7, May, "a bridge may keep any seam's data in memory only: certify never restarts a bridge or its store and checks nothing across a restart (what a restart keeps is the store's own promise; the reference memory store keeps nothing, SQLite and PostgreSQL keep everything)",
			"Spec §7 pins the plugin-tier seams without a durability contract, and a black-box check cannot restart a store it did not start without knowing how it keeps data. A DurableStateStore is durable by name, but holding an in-memory test double to that would make the kits useless for the fakes store authors test against.").choice("keep any seam's data in memory only (certify checks nothing across a restart)", "keep it durably"),
	}
}
