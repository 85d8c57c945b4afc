package spec

// vectorInterpretations lists the interpretation clauses of the vector area (ids I-VECTOR-n). Each clause's Note says
// what the spec leaves open and what we decided.
func vectorInterpretations() []Clause {
	return []Clause{}
}
