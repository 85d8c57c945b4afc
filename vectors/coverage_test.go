package vectors

import (
	"sort"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// notFoldBehaviour lists the §4 clauses that no fold vector can enforce, and why.
var notFoldBehaviour = map[string]string{
	"S4.log.known-types-pinned":            "a pin of the manifest's event table (manifest tests)",
	"S4.K5.add-minor":                      "a versioning rule (manifest pin)",
	"S4.K5.remove-major":                   "a versioning rule (manifest pin)",
	"S4.K5.version-and-set-together":       "a versioning rule (manifest pin)",
	"S4.ingress.null-after-parked-failure": "an ingress refusal appends nothing: nothing to fold (reference/kernel ingress tests)",
	"S4.v1_23.shapes-frozen":               "a change-control rule on the Wave 2 shapes",
	"S4.v1_24.evidence-order":              "evidenceEvents ordering is a runtime reader of _decisions, not the fold",
	"S4.v1_24.wire-unchanged":              "event bytes across profiles (goldens V124EventBytesUnchanged) and the wire handshake's version (kernel/handshake/versions)",
	"S4.v1_25.park-fence-ignorable":        "the park fence is a runtime rule",
	"S4.v1_18.getdecision-choice-only":     "what a replayed decision serves is a runtime rule (reference/kernel TestDecideServesChoiceOnly)",
	"S4.v1_24.seq-descriptive":             "seq as a non-input is a runtime rule (reference/kernel TestDecideServesChoiceOnly)",
	"S4.v1_23.divergence-fail-mode":        "what a runtime in a divergence fail mode writes is a runtime rule; the folded shape is S4.v1_23.diverged-null-status-only",
}

// foldInterpretations are the fold interpretations that decide what the fold prints (I-FOLD-11
// bounds the decoder, I-FOLD-14 scopes a claim, I-FOLD-19 orders evidence outside the fold).
var foldInterpretations = map[string]bool{
	"I-FOLD-1": true, "I-FOLD-2": true, "I-FOLD-3": true, "I-FOLD-4": true, "I-FOLD-5": true, "I-FOLD-6": true,
	"I-FOLD-7": true, "I-FOLD-8": true, "I-FOLD-9": true, "I-FOLD-10": true, "I-FOLD-12": true, "I-FOLD-13": true,
	"I-FOLD-15": true, "I-FOLD-16": true, "I-FOLD-17": true, "I-FOLD-18": true, "I-FOLD-26": true, "I-FOLD-28": true,
	"I-FOLD-29": true, "I-FOLD-30": true, "I-FOLD-31": true, "I-FOLD-40": true,
}

// Reference: spec §3, §4 — every fold clause is named by at least one hand-written vector.
func TestHandVectorsCoverFoldClauses(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, v := range c.Vectors {
		if strings.HasPrefix(v.ID, "generated/") {
			continue
		}
		for _, id := range v.Clauses {
			named[id] = true
		}
	}
	var missing []string
	for _, cl := range spec.Clauses() {
		fold := strings.HasPrefix(cl.ID, "S4.") ||
			strings.HasPrefix(cl.ID, "S3.fold.") || strings.HasPrefix(cl.ID, "S3.snapshot.") ||
			cl.ID == "S3.emit.fold-count" || cl.ID == "S3.emit.identity" || cl.ID == "S3.emit.canonical-form" ||
			cl.ID == "S3.emit.stamp" || cl.ID == "S3.emit.legacy-log" || cl.ID == "S3.emit.segment" ||
			foldInterpretations[cl.ID]
		if !fold || named[cl.ID] {
			continue
		}
		if _, ok := notFoldBehaviour[cl.ID]; ok {
			continue
		}
		missing = append(missing, cl.ID)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("vectors/clause-coverage [A26.vectors.language-agnostic]: fold clauses named by no hand-written vector = %q, want none", missing)
	}
	for id := range notFoldBehaviour {
		if _, ok := spec.Lookup(id); !ok {
			t.Errorf("notFoldBehaviour names unknown clause %q", id)
		}
	}
}
