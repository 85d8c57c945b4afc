package ingressprops

import (
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
	"pgregory.net/rapid"
)

// TestReferenceGateProperties: the reference gate agrees with the model on random cases; on failure
// rapid prints the seed and the shrunk case. Reference: spec §5, ingress gate.
func TestReferenceGateProperties(t *testing.T) {
	rapid.Check(t, Property(Reference()))
}

// TestReferenceGateSweep: a deterministic sweep over many more cases than the default rapid run,
// so every branch of §5 is exercised in every `go test`.
func TestReferenceGateSweep(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 500
	}
	if seed, err := Sweep(Reference(), n); err != nil {
		t.Fatalf("seed %d (Cases().Example(%d)):\n%v", seed, seed, err)
	}
}

// TestSweepCoversEveryOutcome: the generator reaches every refusal reason and every accepted kind,
// so agreement with the model means something.
func TestSweepCoversEveryOutcome(t *testing.T) {
	seen := map[string]int{}
	gen := Cases()
	for i := 0; i < 3000; i++ {
		p := Predict(gen.Example(i))
		k := p.Reason
		if k == "" {
			k = "accept:" + p.Kind
		}
		seen[k]++
	}
	for _, want := range []string{"kernel-namespace", "not-suspended", "gate-mismatch", "timer-without-wakeat", "timer-mismatch",
		"recovered-not-running", "null-answer-after-parked-failure", "ambiguous-legacy-answers", "terminal", "authenticator-rejected",
		"discard-not-applicable", "transform-failed", "validation",
		"accept:answer", "accept:verdict", "accept:release", "accept:recover", "accept:migrate", "accept:reopen"} {
		if seen[want] == 0 {
			t.Errorf("ingressprops/coverage [S5.ingress.always]: 3000 cases never reach %q (seen %v)", want, seen)
		}
	}
	t.Logf("outcomes over 3000 cases: %v", seen)
}

// TestChecksValid: every check names known clauses and a unique id.
func TestChecksValid(t *testing.T) {
	if err := spec.Validate(Checks()); err != nil {
		t.Fatalf("ingressprops/checks-valid: spec.Validate(Checks()) = %v, want nil", err)
	}
}
