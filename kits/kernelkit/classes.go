package kernelkit

// classChecks: the classes of defect a kernel written from docs/wire.md alone was certified with
// before a check read them (issue 36): getState's canonical text and sequence, budgets over more
// than one dimension, the wakeAt a timer records, step ids kept byte for byte, resumeAs out of a
// terminal execution.
func classChecks() []kitCheck {
	var out []kitCheck
	for _, f := range []func() []kitCheck{stateClassChecks, budgetClassChecks, timerClassChecks, idClassChecks, terminalClassChecks, parallelClassChecks, humanClassChecks, redriveClassChecks, jsonClassChecks, fieldClassChecks} {
		out = append(out, f()...)
	}
	return out
}
