package spec

// reviewedUnproven says, for spec MUST clauses the suite cannot prove with a mutant today, why —
// after review. Coverage prints the reason beside the mechanical one; an entry for a clause that
// becomes proven is simply not printed.
var reviewedUnproven = map[string]string{
	"S4.v1_23.divergence-fail-mode": "conditional on a fail mode §4 (1.23.0 note) names but requires of no runtime; the reference runtime has no divergence fail mode (a read-only replay refuses and appends nothing, I-KERNEL-1), so no check is linked; see fitness/coverage-ledger.json",
}
