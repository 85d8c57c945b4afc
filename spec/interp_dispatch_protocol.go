package spec

// dispatchProtocolInterpretations answer what a dispatcher author meets that I-DISPATCH-1…8 leave
// open: which targets to register, how the hints bound counts, the instant a lease dies, and which
// package a claim takes. docs/spi.md §8 and docs/bridge.md are their prose.
func dispatchProtocolInterpretations() []Clause {
	const s6 = "§6"
	return []Clause{
		interp("I-DISPATCH-9", s6, Must, "targets lists at least one target, named as the deployment chooses (no name is required: certify uses the names targets returns, the reference dispatchers register \"default\" unless configured); a worker's claim names at least one target it serves, and an empty targets array is an invalid argument",
			"Spec §6 makes a pinned computeTarget resolve to a registered dispatcher target but names none. Requiring one particular name would bind every deployment to our reference; requiring at least one keeps pinning checkable and gives a worker something to serve. The claim's worker side is ours (I-DISPATCH-1), so its argument rules are too.").choice(),
		interp("I-DISPATCH-10", s6, Must, "the 4 096-byte hints bound counts the bytes of the hints' JSON text as the dispatcher receives it (in Go len(Hints); over the bridge the text of the hints member, which certify sends compact and ASCII at the bound): 4 096 bytes are accepted, 4 097 refused; absent hints and an empty object are different and each is delivered as sent; null hints are not an object (over the bridge a params error, -32602)",
			"I-DISPATCH-2 bounds hints at 4 KiB without saying what is counted. Counting the text received is what any implementation can do without re-encoding; because certify sends compact ASCII text at the bound, a dispatcher that counts after re-encoding compactly agrees with one that counts the raw text. An empty object is a value a caller chose, so it comes back as sent (spec §6: the package carries the resume hints).").choice(),
		interp("I-DISPATCH-11", s6, Must, "a lease is live while the dispatcher's clock is before expiresAt and dead from expiresAt on (at exactly expiresAt it is dead), for good, whether or not another worker has claimed its package since; the kit calls a lease dead only ttl plus 50 ms after its claim returned (and, when expiresAt read on the kit's clock is later, after that, by at most one second more), so clock skew below that margin never decides a verdict",
			"I-DISPATCH-4 makes an expired lease dead without fixing the instant or how a black-box check can know it has passed on another machine's clock. A half-open interval [claim, expiresAt) matches how TTLs are usually computed (expiresAt = now + ttl); waiting from the kit's own claim-return time covers a dispatcher whose clock is behind the kit's, and reading expiresAt covers one that is ahead.").protocol(),
		interp("I-DISPATCH-12", s6, Must, "claim answers none only when no package is deliverable to the worker, and otherwise leases the oldest deliverable package in dispatch order; a package that is not deliverable (leased, queued behind its execution's head, or pinned to a target the worker does not serve) never hides one that is",
			"The worker side of the seam is ours (I-DISPATCH-1), so what a claim answers is too. A queue that looks only at its head stalls every execution behind one that a worker holds, and one that serves the newest first starves old executions; both look healthy until a fleet is loaded. Dispatch order is the one order every queue has.").choice(),
	}
}
