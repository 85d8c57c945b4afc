package spec

// reviewedUnproven says, for spec MUST clauses the suite cannot prove with a mutant today, why —
// after review. Coverage prints the reason beside the mechanical one; an entry for a clause that
// becomes proven is simply not printed.
var reviewedUnproven = map[string]string{
	"S4.v1_23.outcome-fields":           "OUTCOME_RECORDED's optional recordedBy and late fold verbatim and move nothing; the vector that names the clause checks status only, and no broken fold mishandling the fields is registered",
	"S4.v1_23.shapes-frozen":            "a rule about later schema changes (they must be additive): the event schema pin enforces it when one happens; there is no behaviour to break today",
	"S4.v1_23.divergence-fail-mode":     "conditional on a fail mode §4 (1.23.0 note) names but requires of no runtime; the reference runtime has no divergence fail mode (a read-only replay refuses and appends nothing, I-KERNEL-1), so no check is linked; see fitness/coverage-ledger.json",
	"S4.v1_24.evidence-order":           "evidence ordering happens outside the fold (reference/fold TestEvidenceOrder); there is no seam to inject a broken orderer",
	"S5.resume.by-execution-id":         "the reference runtime addresses an execution by id with no routing table to break; its test shows another execution stays parked, but no broken router is registered",
	"S5.ingress.refusal-fold-identical": "a property of every legitimate log; the ingress sweep checks a delivered event is inert, but no gate mutant makes a refused event fold",
	"S5.schema.absent-unchanged":        "with no schema the answer is recorded as sent; no mutant re-encodes an unschema'd answer yet",
	"S6.placement.kernel-concern":       "placement is checked by verify placement (deployment files), outside the kernel checks this report proves",
	"S6.dispatch.coordinates-only":      "the dispatcher contract belongs to the dispatcher kit; no check links it yet",
	"S6.placement.compute-target":       "a pinned computeTarget is resolved by verify placement; no mutant deployment is registered",
	"S7.es.store-now-fallback":          "a caller rule (maintenance falls back to its own clock); proven where the lifecycle runner's mutants link it",
	"S7.es.delete-through-no-fallback":  "a caller rule (no fallback to deleteExecution); proven where the lifecycle runner's mutants link it",
	"S7.as.not-read-on-replay":          "a caller rule (replay never reads the archive); proven where the lifecycle runner's mutants link it",
	"S7.plugin.pinned":                  "plugin-tier SPIs are checked by the plugin kits; proven where their broken stores link it",
	"S10.kits.reference-impls":          "the reference stores passing their kits is what their kit tests show; a broken reference store is a kits/broken mutant, counted under the kit's own clauses",
	"S10.replay-unchanged":              "golden replay of recorded logs; proven where the golden corpus and its kernel-hook mutants link it",
	"S10.g2.behavioural-and-ratio":      "the G2 fitness gate and its unwired-work mutant",
	"S10.badges.evidence":               "the badge evidence checks and their forged-evidence mutants",
	"S10.fitness.gated":                 "the fitness gates judge a whole run; their own mutants are the proof",
}
