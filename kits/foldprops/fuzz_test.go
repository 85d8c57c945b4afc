package foldprops

import (
	"testing"

	"pgregory.net/rapid"
)

// Reference: spec §3, §4 — coverage-guided search over generated logs: the fuzzer's bytes drive
// the rapid generators, and every property must hold for the reference fold.
func FuzzProperties(f *testing.F) {
	props := Properties()
	tg := Reference()
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		p := props[rapid.IntRange(0, len(props)-1).Draw(t, "property")]
		in := p.Gen.Draw(t, "input")
		if err := p.Check(tg, in); err != nil {
			t.Fatalf("%s %v: %v", p.ID, p.Clauses, err)
		}
	}))
}
