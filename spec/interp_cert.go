package spec

// certInterpretations lists the interpretation clauses of certification verdicts (ids I-CERT-n):
// what a certificate says and when. Each clause's Note says what the spec leaves open and what we
// decided.
func certInterpretations() []Clause {
	const s10 = "§10"
	return []Clause{
		interp("I-CERT-1", s10, Must, "a certification run has exactly one verdict, the worst that applies of: certified, certified with waivers, held to an older SPI version, partial, not certified, target failed; every output (text, JSON, JUnit, HTML, badge, exit code) states that one verdict, and only \"certified\" is a plain certificate",
			"Spec §10 asks third parties to prove alignment by running the kits but says nothing of what the proof reads like. A certificate is shown to customers, so it may not say more than the run showed: each way a run can fall short of a full judgement at the current SPI gets its own name, its own badge message and its own exit code, and every renderer reads the one value instead of deciding again.").protocol(),
		interp("I-CERT-2", s10, Must, "a MUST failure the expected-failures ledger excuses is a waiver: the run reads \"certified with N waivers\" (exit 4, a yellow badge), never \"certified\"; a listed failure of a SHOULD check is not a waiver, since it blocks nothing anyway",
			"The spec does not know ledgers (I-BRIDGE-8 is ours). A ledger lets a store ship while a known defect is fixed, but a MUST clause that fails is a MUST clause the store does not keep; the reader of the certificate must see that, and a caller must opt in (--accept certified-with-waivers) to treat it as success.").protocol(),
		interp("I-CERT-3", s10, Must, "a MUST check with no verdict (timeout, the bridge stopped answering) keeps the run from being certified; a MUST check skipped because the store does not declare the optional method it exercises, or because the method is later than the SPI version the store is held to, is outside the certificate's claim and does not block it",
			"Spec §7 lets an implementation omit optional SPI methods and the kits skip them; the certificate is of the declared claim (I-BRIDGE-1), which it prints. A check that should have run and did not judge anything is not a pass, so unknown blocks; each served seam must still run at least one MUST check (I-STORE-24).").protocol(),
		interp("I-CERT-4", s10, Must, "a target that never starts or never answers the handshake is the verdict \"target failed\" (exit 3): one error naming the cause first, carried in the JSON report (targetError) and as a JUnit error case, and no check is listed as unknown",
			"The spec says nothing about a conformance run whose subject is absent. Listing every check as unknown buries the cause under hundreds of lines and looks like a store that failed; a distinct verdict and exit code let CI tell a broken deployment from a broken store.").protocol(),
		interp("I-CERT-5", s10, Must, "an SPI version to hold a seam to must lie between 1.0.0 and the seam's current version; any other is bad input (exit 2, naming the known range); a seam held below its current version, by --spi or by its own claim, reads \"held to X\" (exit 6), never \"certified\"",
			"Spec §7 versions each SPI but does not say what a certificate at an older version means. Silently certifying an unknown version as the current one, or an old one as if it were current, both overstate the claim; an old version is legitimate but must be named on the certificate and the badge.").protocol(),
		interp("I-CERT-6", s10, Must, "a run restricted by --run to a subset of the checks is \"partial\" (exit 5) in every output, whatever its results: a subset is never a certificate",
			"The spec's conformance kits are whole suites; --run exists to reproduce and debug one check. A badge drawn from seven of thirty-six checks would certify what was never run.").protocol(),
		interp("I-CERT-7", "ADR 0026", Must, "a conformance run that judged nothing (no check or vector passed or failed: all unknown, all skipped, none selected) fails",
			"ADR 0026 makes the fold vectors a gate for foreign folds; a gate that opens when nothing was compared is no gate. certify already refuses a seam that ran no MUST check (I-STORE-24); vectors holds the same line.").protocol(),
		interp("I-CERT-8", "ADR 0026", Must, "a foreign fold is pinged (a canonical request with id loom/ping) before the first vector and after two unanswered vectors in a row; when the ping goes unanswered within the timeout, every remaining vector is unknown at once, so a hanging fold costs at most about three timeouts, never one per vector",
			"ADR 0026 says nothing about foreign folds that hang. Waiting the timeout for each of hundreds of vectors turns a hang into an hour of CI; any answer to the ping, output or error, shows the fold is alive, so a fold that is only slow on some vectors loses only those.").protocol(),
		interp("I-CERT-9", s10, Must, "a certificate's headline and badge name exactly the seams the target served, which are the ones the run judged: one seam by its name and SPI version, several by their number with the certificate listing each; a seam asked for but not served is said to be not judged and is never covered by the badge",
			"Spec §10 asks stores to prove alignment by running the kits but says nothing of how far one run's proof reaches. Asked for every seam, a target serving one would otherwise read as a certificate of all of them; a badge travels without its report, so its label itself must bound the claim.").protocol(),
	}
}
