package spec

// foldInterpretations lists the interpretation clauses of the fold area (ids I-FOLD-n). Each clause's Note says
// what the spec leaves open and what we decided.
func foldInterpretations() []Clause {
	return []Clause{}
}
