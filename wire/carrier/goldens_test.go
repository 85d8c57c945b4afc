package carrier

import (
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/internal/proof"
)

// Reference: ADR 0026 consequences, spec §1 G2 — every golden flow script re-run with the wire
// carrier mounted and served (no client) writes a log byte-identical to its golden.
func TestGoldensUnwiredWithCarrier(t *testing.T) {
	for _, p := range goldensUnwired(t, Options{}) {
		t.Errorf("wire/goldens-unwired [A26.wire.unwired-identical]: %s", p)
	}
}

// A carrier that adopts the runtime's flows when it is mounted changes what an in-process start
// records: wire/goldens-unwired rejects it.
func TestUnwiredMutantRejected(t *testing.T) {
	for _, m := range BrokenMounts() {
		t.Run(m.Name, func(t *testing.T) {
			ps := goldensUnwired(t, Options{Hooks: m.carrier})
			proof.Rejected(t, "kernel/wire/"+m.Name, m.CaughtBy, proof.Failure(m.CaughtBy, nil, "the goldens with "+m.Name+" mounted", strings.Join(ps, "\n")))
		})
	}
}

// goldensUnwired re-runs the golden corpus with a carrier built from opts mounted, and returns the
// goldens whose run differs.
func goldensUnwired(t *testing.T, opts Options) []string {
	t.Helper()
	corpus, err := goldens.LoadCorpus("../../goldens/corpus")
	if err != nil {
		t.Fatal(err)
	}
	if len(corpus) == 0 {
		t.Fatal("the golden corpus is empty")
	}
	v := goldens.Variant{Name: "wire-carrier-mounted", Applies: func(*goldens.Golden) bool { return true }, Mount: MountWith(opts)}
	var out []string
	for _, r := range goldens.Check(testCtx(t), corpus, goldens.CheckOptions{Variants: []goldens.Variant{v}}) {
		if r.Failed() {
			out = append(out, r.String())
		}
	}
	return out
}
