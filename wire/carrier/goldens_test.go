package carrier

import (
	"testing"

	"github.com/loom-kernel/loom-conform/goldens"
)

// Reference: ADR 0026 consequences, spec §1 G2 — every golden flow script re-run with the wire
// carrier mounted and served (no client) writes a log byte-identical to its golden.
func TestGoldensUnwiredWithCarrier(t *testing.T) {
	corpus, err := goldens.LoadCorpus("../../goldens/corpus")
	if err != nil {
		t.Fatal(err)
	}
	if len(corpus) == 0 {
		t.Fatal("the golden corpus is empty")
	}
	v := goldens.Variant{Name: "wire-carrier-mounted", Applies: func(*goldens.Golden) bool { return true }, Mount: Mount}
	for _, r := range goldens.Check(testCtx(t), corpus, goldens.CheckOptions{Variants: []goldens.Variant{v}}) {
		if r.Failed() {
			t.Errorf("wire/goldens-unwired [A26.wire.unwired-identical]: %s", r)
		}
	}
}
