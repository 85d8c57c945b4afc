package spec

// certRunInterpretations are the certification rules about how a run reaches its verdicts: a check
// run again, a check that stalled, and the Go route to the same certificate (I-CERT-60…69).
func certRunInterpretations() []Clause {
	const s10 = "§10"
	return []Clause{
		interp("I-CERT-60", s10, Must, "a check the harness ran again (its first run had no verdict while the target answered, or the target came back after an outage) is marked re-run on every surface — the certificate, the JSON report, the HTML page and the JUnit file — with what the first run ended in; its verdict is the last run's",
			"The spec does not know re-runs; I-CERT-12 lets the harness run a check again so that an outage, or a stall of the machine, is not blamed on the store. A store whose calls hang now and then then passes on its second try, and a reader who sees only the verdict never learns that the first try hung for the whole time limit; saying it wherever the verdict is said keeps the certificate from claiming more than the run showed.").protocol(),
		interp("I-CERT-61", s10, Must, "a check that did not finish names what stalled: the call to the target that had not returned when its time limit passed (its operation), or, for a dispatcher whose claims keep delivering nothing, that the queue stalled at its head behind a package leased and unacked; never only \"cut short (context deadline exceeded)\"",
			"The spec says nothing of diagnosing a conformance run. A hang and a slow machine read alike when all the verdict says is that the deadline passed; naming the call that did not return, or the package the queue is stuck behind, tells the store's author where to look, and tells a reader of the certificate that the unknown was the target's.").protocol(),
		interp("I-CERT-62", s10, Must, "one route, one verdict: the Go kits (kits.EventStore(t, factory) and their siblings) run the checks certify runs on a seam, every bridge-independent check included, and fail go test exactly where certify does not certify: on a required check that failed or has no verdict, a recommendation not met failing only under Options.Strict; certify.RunStore certifies Go values with the report, certificate, JSON, JUnit, HTML and badge of the command line, and a certificate always names the harness's version (the build's, or \"devel\")",
			"Spec §10 asks implementations to prove alignment by running the kits. A Go author who stops at go test must not learn less, or something else, than one who runs certify: two routes with two answers make a green go test worth nothing on a certificate. A recommendation (a choice, DESIGN §7.1) never blocks a certificate, so it never fails go test either, unless the author asks to be held to it, as --strict does.").protocol(),
	}
}
