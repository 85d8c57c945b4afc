package ingressprops

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"
	"pgregory.net/rapid"
)

// EmitChecker is the userspace emit checker under test; userspace.Check is the reference.
type EmitChecker func(e userspace.Emit, recorded map[string]fold.Decision) (userspace.Checked, error)

// CheckEmitVerdict is the check id of the emit property.
const CheckEmitVerdict = "ingressprops/emit-matches-model"

var emitClauses = []string{"S5.emit.userspace-kernel-refused", "S5.emit.relay-app-only", "S5.emit.metered-valid",
	"S5.emit.quota-reason-bounded", "S5.emit.effect-decision-rewritten", "S5.emit.no-choice-change", "S5.decide.loom-reserved"}

// CheckEmitCase runs one emit case against ch.
func CheckEmitCase(ch EmitChecker, c EmitCase) error {
	got, err := ch(c.Emit(), Recorded())
	want := PredictEmit(c)
	reason := ""
	var r *userspace.EmitRefusedError
	switch {
	case errors.As(err, &r):
		reason = r.Reason
	case err != nil:
		reason = "error: " + err.Error()
	}
	bad := func(g, w string) error {
		return fmt.Errorf("%s %v: Check(%#v) = %s, want %s", CheckEmitVerdict, emitClauses, c, g, w)
	}
	if reason != want.Reason {
		return bad(show(reason)+fmt.Sprintf(" (%v)", err), show(want.Reason))
	}
	if err != nil {
		return nil
	}
	if !json.Valid(got.Payload) {
		return bad(fmt.Sprintf("payload %q", got.Payload), "the plain JSON copy")
	}
	if want.FoldedID != "" {
		var p struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(got.Payload, &p)
		if p.ID != want.FoldedID || got.DecisionID != want.FoldedID {
			return bad(fmt.Sprintf("folded id %q (DecisionID %q)", p.ID, got.DecisionID), want.FoldedID)
		}
	}
	return nil
}

// EmitProperty is the rapid property over ch.
func EmitProperty(ch EmitChecker) func(*rapid.T) {
	return func(t *rapid.T) {
		c := EmitCases().Draw(t, "emit")
		if err := CheckEmitCase(ch, c); err != nil {
			t.Fatalf("%v", err)
		}
	}
}

// SweepEmits checks the first n cases of the deterministic emit stream.
func SweepEmits(ch EmitChecker, n int) (int, error) {
	gen := EmitCases()
	for i := 0; i < n; i++ {
		if err := CheckEmitCase(ch, gen.Example(i)); err != nil {
			return i, err
		}
	}
	return -1, nil
}
