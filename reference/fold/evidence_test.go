package fold

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/internal/proof"
)

// evidenceOrderMismatch orders a _decisions map mixing stamped and unstamped entries (an unstamped
// one before any stamped, runs of unstamped after stamped ones, ids whose map order differs from
// their seq order) and reports how order departs from spec §4 1.24.0: stamped entries by seq, each
// unstamped entry right after the stamped entry preceding it in map order (I-FOLD-19: canonical key
// order).
func evidenceOrderMismatch(order func(State) []string) error {
	d := func(seq int64, has bool) Decision { return Decision{Choice: rawOne, Seq: seq, HasSeq: has} }
	s := Empty()
	s.Variables.Decisions = map[string]Decision{
		"a": d(5, true), "b": d(0, false), "c": d(2, true), "d": d(0, false), "0": d(0, false), "e": d(9, true),
	}
	if diff := cmp.Diff([]string{"0", "c", "d", "a", "b", "e"}, order(s)); diff != "" {
		return fmt.Errorf("fold/evidence-order [S4.v1_24.evidence-order I-FOLD-19]: DecisionEvidenceOrder mismatch (-want +got):\n%s", diff)
	}
	return nil
}

// Reference: spec §4 1.24.0 — evidence order: stamped entries by seq, each unstamped entry right
// after the stamped entry preceding it in map order.
func TestDecisionEvidenceOrder(t *testing.T) {
	if err := evidenceOrderMismatch(DecisionEvidenceOrder); err != nil {
		t.Error(err)
	}
}

// brokenEvidenceOrders are evidence orderers with one defect each (registered in Mutants).
var brokenEvidenceOrders = map[string]func(State) []string{
	// Every unstamped entry after all the stamped ones, instead of beside the decision it followed.
	"fold/evidence-order/unstamped-last": func(s State) []string {
		var stamped, unstamped []string
		for _, id := range DecisionEvidenceOrder(s) {
			if s.Variables.Decisions[id].HasSeq {
				stamped = append(stamped, id)
			} else {
				unstamped = append(unstamped, id)
			}
		}
		slices.SortFunc(unstamped, compareUTF16)
		return append(stamped, unstamped...)
	},
}

// Every broken evidence orderer fails the evidence-order check. Reference: spec §4 1.24.0; DESIGN
// §6 (a check is proven by the mutant it rejects).
func TestBrokenEvidenceOrdersRejected(t *testing.T) {
	var built []string
	for id := range brokenEvidenceOrders {
		built = append(built, id)
	}
	for _, m := range proof.Registered(t, Mutants(), "reference/fold:TestBrokenEvidenceOrdersRejected", built) {
		err := evidenceOrderMismatch(brokenEvidenceOrders[m.ID])
		if err == nil {
			t.Errorf("fold/evidence-order %v: %s = the reference order, want a mismatch", m.Clauses, m.ID)
			continue
		}
		proof.Rejected(t, m.ID, "fold/evidence-order", proof.Failure("fold/evidence-order", m.Clauses, "EvidenceOrder("+m.ID+")", err))
	}
}
