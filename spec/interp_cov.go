package spec

// coverageInterpretations lists the interpretation clauses of the coverage area (ids I-COV-n):
// what it means for the suite to enforce a clause. Each Note says what the spec leaves open and
// what we decided.
func coverageInterpretations() []Clause {
	const s10 = "§10"
	return []Clause{
		interp("I-COV-1", s10, Must, "a clause counts as proven only when a registered mutant that violates it was rejected, in the recorded test run, by a check linked to it; a link from a check to a clause alone is reported as linked, never as proven, and without proof records the report says proven is not measured",
			"Spec §10 (and the preamble) asks that every guarantee be anchored to a conformance test, but not how to tell a test that enforces a clause from one that merely names it. A link is a claim; a rejected mutant is evidence. So every deliberately broken implementation is registered as data (spec.Mutant: the clauses it violates, the checks meant to catch it, the proving test), proving tests record each rejection they observe (internal/proof, only when the test passed and only with the check's failure as evidence), and spec --coverage counts a clause proven when some kill of a mutant violating it was made by a check linked to it. Records are per run (make test writes a fresh directory), so a cached or skipped test cannot stand in for one; with none given the report says so rather than guess."),
		interp("I-COV-2", s10, Must, "each spec clause records whether its sentence carries an RFC 2119 keyword (keyword) or is a declarative sentence read as normative (declarative); ADR 0026 clauses are declarative; interpretations are decisions; coverage reports linked and proven for each form",
			"Spec §1 marks itself normative and uses MUST, MUST NOT, MAY and OPTIONAL in about thirty sentences, while most guarantees are stated as facts (\"the fold never mutates\", \"snapshots are out of band\"). Reading only keyword sentences as normative would drop most of the contract; reading every sentence as normative hides which level is our reading. We keep both in the registry and in the report, so a reader can weigh proven coverage of keyword clauses apart from clauses whose level we assigned."),
		interp("I-COV-3", s10, Must, "the suite's own machinery is checked against its own clause: catalog validity (every check and mutant names known clauses, checks and an existing test), generator frequency and kit self-consistency tests link to this clause, never to the behavioural clauses their generators or catalogs mention",
			"A test that proves a catalog or a generator well-formed (TestChecksValid, generator frequency tests) cannot fail on a wrong implementation of the behaviour it feeds, so linking it to behavioural clauses inflates coverage. The spec does not say how a conformance suite accounts for its own scaffolding; we give it one clause, so the links stay true and the scaffolding is still visible in the matrix."),
	}
}
