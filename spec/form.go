package spec

// Form says how a clause's sentence is normative.
type Form string

const (
	// FormKeyword: the spec (or ADR) sentence carries an RFC 2119 keyword (MUST, MUST NOT,
	// SHOULD, MAY, …).
	FormKeyword Form = "keyword"
	// FormDeclarative: the sentence states what is ("the fold never mutates …"), read as
	// normative at the level the registry gives it.
	FormDeclarative Form = "declarative"
	// FormDecision: an interpretation, our decision where the spec is silent.
	FormDecision Form = "decision"
)

// Forms lists the forms in reporting order.
func Forms() []Form { return []Form{FormKeyword, FormDeclarative, FormDecision} }

func formOf(c Clause) Form {
	switch {
	case c.Source == SourceInterpretation:
		return FormDecision
	case keywordClauses[c.ID]:
		return FormKeyword
	}
	return FormDeclarative
}

// keywordClauses are the spec clauses whose sentence carries an RFC 2119 keyword (MUST, MUST NOT,
// MAY, OPTIONAL; the spec uses SHOULD nowhere a clause is drawn from). Every other spec clause, and
// every ADR 0026 clause (the ADR has no keyword), paraphrases a declarative sentence read as
// normative at the level the registry gives it (I-COV-2). TestKeywordClausesKnown keeps the table
// to registered spec clauses.
var keywordClauses = map[string]bool{
	"S1.P2.replay-identical":                   true,
	"S1.P2.fold-pure":                          true,
	"S1.P9.decision-logged":                    true,
	"S1.G1.preserve-p2-p9":                     true,
	"S1.G2.opt-in":                             true,
	"S1.G2.unwired-byte-identical":             true,
	"S2.execute.served-not-rerun":              true,
	"S3.emit.serve-skip":                       true,
	"S3.emit.serve-append":                     true,
	"S3.emit.stamp-exceeds-count":              true,
	"S3.emit.stamp-nothing-in-flight":          true,
	"S3.emit.stamp-nothing-unserved":           true,
	"S3.emit.never-timing":                     true,
	"S3.snapshot.equivalence":                  true,
	"S4.fold.handler-pure":                     true,
	"S4.fold.proto-rejected":                   true,
	"S4.fold.status-execution-only":            true,
	"S4.fold.step-failed-not-fatal":            true,
	"S4.fold.failed-while-parked-cleared":      true,
	"S4.fold.null-resume-after-parked-failure": true,
	"S4.ingress.null-after-parked-failure":     true,
	"S4.snapshot.normalize-pre-1.21":           true,
	"S4.K5.version-and-set-together":           true,
	"S41.typed.declare":                        true,
	"S5.resume.correlation-optional":           true,
	"S5.timer.durable-wakeat":                  true,
	"S5.ingress.kernel-namespace":              true,
	"S5.ingress.suspended-only":                true,
	"S5.ingress.gate-match":                    true,
	"S5.ingress.recovered-running-only":        true,
	"S5.ingress.one-entry-per-suspend":         true,
	"S5.ingress.indoubt-other-refused":         true,
	"S5.ingress.refusal-appends-nothing":       true,
	"S5.resumeas.parked-all-rules":             true,
	"S5.emit.userspace-kernel-refused":         true,
	"S5.emit.metered-valid":                    true,
	"S5.decide.loom-reserved":                  true,
	"S5.decide.verdict-beside-indoubt":         true,
	"S5.human.condition-stepid":                true,
	"S5.ingress.ambiguous-legacy":              true,
	"S5.auth.may-gate":                         true,
	"S5.schema.may-declare":                    true,
	"S5.schema.parse-before-append":            true,
	"S5.schema.record-parsed":                  true,
	"S5.schema.refuse-still-parked":            true,
	"S5.resumeas.transform-may":                true,
	"S6.placement.compute-target":              true,
	"S7.es.incarnation-anchor":                 true,
	"S7.spi.optional-may-omit":                 true,
	"S8.budget.may-cap":                        true,
}
