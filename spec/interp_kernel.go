package spec

// kernelInterpretations lists the interpretation clauses of the kernel area (ids I-KERNEL-n). Each clause's Note says
// what the spec leaves open and what we decided.
func kernelInterpretations() []Clause {
	return []Clause{}
}
