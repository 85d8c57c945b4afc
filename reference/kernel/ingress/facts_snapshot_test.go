package ingress

import (
	"testing"

	"github.com/loom-kernel/loom-conform/kits/foldprops"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"pgregory.net/rapid"
)

// The facts of a log cut at a random point and resumed from the fold of the prefix agree with the
// facts of the whole log on what the gate compares and reads: sequence, status, the number of
// _resumePayloads entries, the current park's gate and condition (docs/interpretations.md
// I-LIFECYCLE-11).
func TestFactsAfterSnapshot(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		log := foldprops.Log(foldprops.GenOptions{MaxActions: 30}).Draw(rt, "log")
		if len(log) == 0 {
			return
		}
		cut := rapid.IntRange(0, len(log)-1).Draw(rt, "cut")
		p := fold.Current()
		want, err := FactsFor(p, log)
		if err != nil {
			rt.Fatalf("FactsFor(log) = %v", err)
		}
		base, err := fold.Fold(p, nil, log[:cut+1])
		if err != nil {
			rt.Fatalf("Fold(log[:%d]) = %v", cut+1, err)
		}
		got, err := FactsAfterSnapshot(p, base, log[cut+1:])
		if err != nil {
			rt.Fatalf("ingress/facts-after-snapshot [I-LIFECYCLE-11]: FactsAfterSnapshot(fold(log[:%d]), tail) = %v, want facts", cut+1, err)
		}
		if got.Sequence != want.Sequence || got.Status != want.Status || len(got.Entries) != len(want.Entries) {
			rt.Fatalf("ingress/facts-after-snapshot [I-LIFECYCLE-11]: FactsAfterSnapshot(fold(log[:%d]), tail) = {seq %d, %s, %d entries}, want the whole log's {seq %d, %s, %d entries}",
				cut+1, got.Sequence, got.Status, len(got.Entries), want.Sequence, want.Status, len(want.Entries))
		}
		wp, wok := want.currentPark()
		gp, gok := got.currentPark()
		if wok != gok || wp.Gate != gp.Gate || wp.StepID != gp.StepID || wp.Normal != gp.Normal || wp.Attempt != gp.Attempt {
			rt.Fatalf("ingress/facts-after-snapshot [I-LIFECYCLE-11]: FactsAfterSnapshot(fold(log[:%d]), tail) park = %+v (%v), want the whole log's %+v (%v)", cut+1, gp, gok, wp, wok)
		}
	})
}
