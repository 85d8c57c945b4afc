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

// keywordClauses are the spec and ADR clauses whose sentence carries an RFC 2119 keyword; every
// other spec or ADR clause paraphrases a declarative sentence read as normative.
var keywordClauses = map[string]bool{}
