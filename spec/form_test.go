package spec

import "testing"

// Every keyword entry names a registered spec clause, and every clause gets a form.
func TestKeywordClausesKnown(t *testing.T) {
	by := map[string]Clause{}
	for _, c := range Clauses() {
		by[c.ID] = c
		if c.Form == "" {
			t.Errorf("clause %s has no form", c.ID)
		}
		if c.Source == SourceInterpretation && c.Form != FormDecision {
			t.Errorf("interpretation %s has form %s, want %s", c.ID, c.Form, FormDecision)
		}
	}
	for id := range keywordClauses {
		c, ok := by[id]
		if !ok || c.Source != SourceSpec {
			t.Errorf("keywordClauses names %q, which is not a registered spec clause", id)
		}
		if c.Form != FormKeyword {
			t.Errorf("clause %s form = %s, want %s", id, c.Form, FormKeyword)
		}
	}
	if n := len(keywordClauses); n < 40 {
		t.Errorf("%d keyword clauses, want the ≥ 40 the spec's keyword sentences yield", n)
	}
}

// Every reviewed reason names a registered spec MUST clause.
func TestReviewedUnprovenKnown(t *testing.T) {
	for id := range reviewedUnproven {
		c, ok := Lookup(id)
		if !ok || c.Source != SourceSpec || (c.Level != Must && c.Level != MustNot) {
			t.Errorf("reviewedUnproven names %q, which is not a spec MUST clause", id)
		}
	}
}
