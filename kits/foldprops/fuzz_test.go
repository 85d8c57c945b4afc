package foldprops

import (
	"testing"
)

// Reference: spec §3, §4 — random search over generated logs under `go test -fuzz`: the fuzzer's
// inputs pick a property and seed its generator (Generator.Example), so every input is a full
// realistic case (rapid's own fuzz adapter skips inputs too short to drive a long log), and every
// property must hold for the reference fold. Logs have at most fuzzActions actions: the snapshot
// properties cost the square of a log's length, and a fuzzer gains more from many short logs than
// from a few long ones (TestReferenceFoldProperties keeps the default length).
func FuzzProperties(f *testing.F) {
	for i := range 16 {
		f.Add(uint64(i*7919), uint8(i))
	}
	props := propertiesOf(fuzzActions)
	tg := Reference()
	f.Fuzz(func(t *testing.T, seed uint64, which uint8) {
		p := props[int(which)%len(props)]
		in := p.Gen.Example(int(seed >> 1))
		if err := p.Check(tg, in); err != nil {
			t.Fatalf("%s %v: %v\n%#v", p.ID, p.Clauses, err, in)
		}
	})
}

// fuzzActions bounds the generator actions of a FuzzProperties log.
const fuzzActions = 16
