package ingressprops

import (
	"encoding/json"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"
	"pgregory.net/rapid"
)

// TestUserspaceEmitProperties: the reference emit checker agrees with the model on random emits and
// on a deterministic sweep. Reference: spec §5, userspace emits.
func TestUserspaceEmitProperties(t *testing.T) {
	rapid.Check(t, EmitProperty(userspace.Check))
	if seed, err := SweepEmits(userspace.Check, 2000); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
}

// emitMutants are broken emit checkers, one defect each.
var emitMutants = map[string]EmitChecker{
	"step-completed-allowed": func(e userspace.Emit, rec map[string]fold.Decision) (userspace.Checked, error) {
		if e.EventType == manifest.StepCompleted && e.Source != userspace.SourceRelay {
			b, _ := json.Marshal(e.Payload)
			return userspace.Checked{EventType: e.EventType, Payload: b}, nil
		}
		return userspace.Check(e, rec)
	},
	"relay-forwards-the-seven": func(e userspace.Emit, rec map[string]fold.Decision) (userspace.Checked, error) {
		if e.Source == userspace.SourceRelay {
			e.Source = userspace.SourceFlow
		}
		return userspace.Check(e, rec)
	},
	"no-effect-rewrite": func(e userspace.Emit, rec map[string]fold.Decision) (userspace.Checked, error) {
		if e.Source == userspace.SourceEffect {
			e.Source = userspace.SourceFlow
		}
		return userspace.Check(e, rec)
	},
	"no-ceiling": func(e userspace.Emit, rec map[string]fold.Decision) (userspace.Checked, error) {
		c, err := userspace.Check(e, rec)
		if raw, ok := e.Payload.(json.RawMessage); ok && err != nil && strings.Contains(err.Error(), "ceiling") {
			return userspace.Checked{EventType: e.EventType, Payload: raw}, nil
		}
		return c, err
	},
	"choice-change-allowed": func(e userspace.Emit, _ map[string]fold.Decision) (userspace.Checked, error) {
		return userspace.Check(e, nil)
	},
	"reserved-checked-before-copy": func(e userspace.Emit, rec map[string]fold.Decision) (userspace.Checked, error) {
		// Reads the id from the Go value when it has one, instead of from the copy that is folded.
		if s, ok := e.Payload.(sneakyPayload); ok {
			b, _ := json.Marshal(s)
			return userspace.Checked{EventType: e.EventType, Payload: b, DecisionID: s.ID}, nil
		}
		return userspace.Check(e, rec)
	},
	"quota-unbounded": func(e userspace.Emit, rec map[string]fold.Decision) (userspace.Checked, error) {
		c, err := userspace.Check(e, rec)
		if raw, ok := e.Payload.(json.RawMessage); ok && e.EventType == manifest.QuotaExceeded && err != nil && e.Source != userspace.SourceRelay {
			return userspace.Checked{EventType: e.EventType, Payload: raw}, nil
		}
		return c, err
	},
}

// TestKitRejectsMutantEmitCheckers: every broken emit checker is caught by the emit property.
func TestKitRejectsMutantEmitCheckers(t *testing.T) {
	var built []string
	for name := range emitMutants {
		built = append(built, "emit-checker/userspace/"+name)
	}
	for _, m := range proof.Registered(t, Mutants(), "kits/ingressprops:TestKitRejectsMutantEmitCheckers", built) {
		seed, err := SweepEmits(emitMutants[strings.TrimPrefix(m.ID, "emit-checker/userspace/")], 3000)
		if err == nil {
			t.Errorf("ingressprops/emit-properties %v: SweepEmits(%s) = no violation, want the mutant rejected", m.Clauses, m.ID)
			continue
		}
		for _, c := range m.CaughtBy {
			proof.Rejected(t, m.ID, c, proof.Failure(c, nil, "SweepEmits("+m.ID+")", err))
		}
		t.Logf("%s: caught at seed %d: %.160s", m.ID, seed, err.Error())
	}
}
