package spec

// bridgeInterpretations lists the interpretation clauses of the bridge area (ids I-BRIDGE-n). Each clause's Note says
// what the spec leaves open and what we decided.
func bridgeInterpretations() []Clause {
	return []Clause{}
}
