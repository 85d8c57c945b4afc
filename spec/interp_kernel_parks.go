package spec

// kernelParkInterpretations lists I-KERNEL-80 and up: what a parking syscall that is not
// ctx.suspend (receive, select, continueAsNew) may answer, so that a check of a choice about them
// (I-KERNEL-6: a park inside a parallel branch) can tell a legal option from an answer the spec
// rules out.
func kernelParkInterpretations() []Clause {
	const s4 = "§4"
	return []Clause{
		interp("I-KERNEL-80", s4, Must, "receive and select either park the execution until a delivered message answers the wait (EXECUTION_SUSPENDED listing its waits, then a kernel-stamped MESSAGE_CONSUMED and a wait-addressed EXECUTION_RESUMED) or are refused; a wait is never answered without a delivered message",
			"The spec fixes the records of a Wave 2 wait — the park that lists its waits, the message consumed and the wait-addressed resume that answers it — but not the runtime that writes them. A receive or select answered at once with no park and no message hands the flow an answer the log does not hold: no caller's delivery can reach the wait, and what the flow did with the answer rests on nothing a re-run serves. Refusing a wait the kernel cannot park (the reference refuses one inside a parallel branch, I-KERNEL-6) is a legal option; answering it without parking is not.").consequence(`§4 "EXECUTION_SUSPENDED (waits[], _waits), a wait-addressed EXECUTION_RESUMED (_waitAnswers)"`),
		interp("I-KERNEL-81", s4, Must, "continueAsNew either ends the run as continued (a kernel-stamped EXECUTION_CONTINUED naming the execution it started) or is refused; it never returns to the flow as if the execution had continued",
			"The spec makes EXECUTION_CONTINUED the terminal record of an execution that continued as a new one, without describing the syscall that writes it. A continueAsNew answered like an ordinary call lets the flow run on in an execution that never continued: nothing starts the next one and the log ends as if the flow had not asked. Refusing the call (the reference refuses it inside a parallel branch, I-KERNEL-6) is a legal option; answering it without continuing is not.").consequence(`§4 "EXECUTION_CONTINUED (terminal status continued, _continuedTo)"`),
	}
}
