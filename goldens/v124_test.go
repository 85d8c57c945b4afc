package goldens

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spi"
)

// rerunAt runs golden g (recorded at an older profile) under its driver on a kernel at profile p
// and reports where the log it writes differs from the recorded one, byte for byte (nil when the
// bytes are the same).
func rerunAt(g *Golden, p fold.Profile, config func(*kernel.Config)) error {
	run, err := flowscript.RunDriver(context.Background(), g.Script, g.Driver, flowscript.RunOptions{Config: func(c *kernel.Config) {
		if config != nil {
			config(c)
		}
		c.Profile = p
	}})
	if err != nil {
		return fmt.Errorf("RunDriver(%s) at %s: %w", g.Name, p, err)
	}
	if got, want := EncodeLog(run.Log), EncodeLog(g.Log); !bytes.Equal(got, want) {
		d := DiffLogs(g.Log, run.Log, DiffOptions{Strict: true})
		if d == nil {
			return fmt.Errorf("log of %s at %s: same envelopes, different bytes", g.Name, p)
		}
		return fmt.Errorf("log of %s at %s: %s", g.Name, p, d)
	}
	return nil
}

// Reference: spec §4, 1.24.0 — "event bytes and hash chains are unchanged": a kernel at 1.24.0
// writes, for a flow, the bytes a 1.23.0 kernel recorded. Every golden recorded at 1.23.0 is run
// again at 1.24.0 and its log compared byte for byte; one of them must hold a DECISION_RECORDED,
// the event whose folded entry 1.24.0 changed (seq comes from the envelope, never the payload).
// The wire half of the clause (WIRE_ABI_VERSION unchanged) is the kernel kit's handshake check.
func TestV124EventBytesUnchanged(t *testing.T) {
	const check = "goldens/V124EventBytesUnchanged"
	p124, err := fold.ProfileFor("1.24.0")
	if err != nil {
		t.Fatal(err)
	}
	var at123 []*Golden
	decisions := false
	for _, g := range loadCorpus(t) {
		if g.Recorded.Profile != "1.23.0" {
			continue
		}
		at123 = append(at123, g)
		decisions = decisions || slices.ContainsFunc(g.Log, func(e spi.Envelope) bool { return e.EventType == manifest.DecisionRecorded })
	}
	if len(at123) == 0 || !decisions {
		t.Fatalf("%s [S4.v1_24.wire-unchanged]: goldens recorded at 1.23.0 = %d (decisions: %v), want one holding a DECISION_RECORDED", check, len(at123), decisions)
	}
	for _, g := range at123 {
		if err := rerunAt(g, p124, nil); err != nil {
			t.Errorf("%s [S4.v1_24.wire-unchanged]: %v, want the recorded 1.23.0 bytes", check, err)
		}
	}
	// every Hooks mutant registered as caught here changes those bytes
	proved := 0
	for _, m := range HookMutants() {
		if !slices.Contains(m.CaughtBy, check) {
			continue
		}
		var first error
		for _, g := range at123 {
			if first = rerunAt(g, p124, m.Config); first != nil {
				break
			}
		}
		proof.Rejected(t, m.ID, check, proof.Failure(check, nil, "Check("+m.ID+")", first))
		proved++
	}
	if proved == 0 {
		t.Errorf("%s: no kernel Hooks mutant is registered as caught by it", check)
	}
}
