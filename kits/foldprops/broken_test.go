package foldprops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// brokenTargets are deliberately defective folds, one defect each, and the property that must
// reject each (the kit proves itself, DESIGN §6).
func brokenTargets() []struct {
	tg     Target
	caught string
} {
	ref := Reference()
	mk := func(name string, f FoldFunc, n NormalizeFunc) Target {
		if f == nil {
			f = ref.Fold
		}
		if n == nil {
			n = ref.Normalize
		}
		return Target{Name: name, Fold: f, Normalize: n}
	}
	calls := 0
	return []struct {
		tg     Target
		caught string
	}{
		{mk("mutates-snapshot", func(p fold.Profile, s *fold.State, es []spi.Envelope) (fold.State, error) {
			out, err := fold.Fold(p, s, es)
			if s != nil {
				s.Sequence = -7 // writes to the caller's snapshot
			}
			return out, err
		}, nil), "foldprops/no-mutation"},
		{mk("shares-audit-list", func(p fold.Profile, s *fold.State, es []spi.Envelope) (fold.State, error) {
			out, err := fold.Fold(p, s, es)
			if s != nil && len(out.Variables.ResumePayloads) > 0 {
				s.Variables.ResumePayloads = append(s.Variables.ResumePayloads, json.RawMessage(`"leak"`))
			}
			return out, err
		}, nil), "foldprops/no-mutation"},
		{mk("step-failed-fails-execution", func(p fold.Profile, s *fold.State, es []spi.Envelope) (fold.State, error) {
			return fold.Fold(fold.MustProfile("1.20.0"), s, es)
		}, nil), "foldprops/status-execution-only"},
		{mk("any-step-event-while-parked-flags", func(p fold.Profile, s *fold.State, es []spi.Envelope) (fold.State, error) {
			out, err := fold.Fold(p, s, es)
			if err == nil && s != nil && len(es) == 1 && s.Status == fold.StatusSuspended && es[0].EventType == "STEP_COMPLETED" {
				out.Variables.Values = maps.Clone(out.Variables.Values)
				if out.Variables.Values == nil {
					out.Variables.Values = map[string]json.RawMessage{}
				}
				out.Variables.Values[fold.VarFailedWhileParked] = json.RawMessage("true") // only STEP_FAILED may
			}
			return out, err
		}, nil), "foldprops/status-execution-only"},
		{mk("unstamped-continued-moves-status", func(p fold.Profile, s *fold.State, es []spi.Envelope) (fold.State, error) {
			out, err := fold.Fold(p, s, es)
			if err == nil && len(es) == 1 && es[0].EventType == "EXECUTION_CONTINUED" && !bytes.Contains(es[0].Metadata, []byte(`"kernel":true`)) {
				out.Status = fold.StatusContinued // an application event of that name is a no-op
			}
			return out, err
		}, nil), "foldprops/status-execution-only"},
		{mk("unknown-not-inert", func(p fold.Profile, s *fold.State, es []spi.Envelope) (fold.State, error) {
			es = append([]spi.Envelope(nil), es...)
			for i := range es {
				if strings.Contains(es[i].EventType, "UNKNOWN") {
					es[i].EventType = "EXECUTION_CANCELLED"
				}
			}
			return fold.Fold(p, s, es)
		}, nil), "foldprops/unknown-inert"},
		{mk("lossy-snapshot", func(p fold.Profile, s *fold.State, es []spi.Envelope) (fold.State, error) {
			if s != nil {
				c := *s
				c.Variables.ResumePayloads = nil
				s = &c
			}
			return fold.Fold(p, s, es)
		}, nil), "foldprops/snapshot-every-k"},
		{mk("keeps-infinite-attempt", func(p fold.Profile, s *fold.State, es []spi.Envelope) (fold.State, error) {
			out, err := fold.Fold(p, s, es)
			for _, e := range es { // the attempt JSON.parse gives, Infinity included: it prints as null
				var pl struct {
					StepID  string      `json:"stepId"`
					Attempt json.Number `json:"attempt"`
				}
				if err != nil || !strings.HasPrefix(e.EventType, "STEP_") || json.Unmarshal(e.Payload, &pl) != nil {
					continue
				}
				if _, perr := strconv.ParseFloat(string(pl.Attempt), 64); perr != nil && pl.Attempt != "" {
					if fr, ok := out.Frames[pl.StepID]; ok {
						fr.Attempt = json.RawMessage(pl.Attempt)
						out.Frames = maps.Clone(out.Frames)
						out.Frames[pl.StepID] = fr
					}
				}
			}
			return out, err
		}, nil), "foldprops/snapshot-every-k"},
		{mk("nondeterministic", func(p fold.Profile, s *fold.State, es []spi.Envelope) (fold.State, error) {
			out, err := fold.Fold(p, s, es)
			calls++
			out.UpdatedAt = fold.NullInt{Int: int64(calls), Valid: true}
			return out, err
		}, nil), "foldprops/determinism"},
		{mk("stale-profile", func(p fold.Profile, s *fold.State, es []spi.Envelope) (fold.State, error) {
			return fold.Fold(fold.MustProfile("1.23.0"), s, es)
		}, nil), "foldprops/differential-model"},
		{mk("normalize-invents-seq", nil, func(s fold.State, w fold.Profile) fold.State {
			out := fold.NormalizeSnapshotState(s, w)
			ds := map[string]fold.Decision{}
			for id, d := range out.Variables.Decisions {
				if !d.HasSeq {
					d.Seq, d.HasSeq = 1000, true
				}
				ds[id] = d
			}
			if out.Variables.Decisions != nil {
				out.Variables.Decisions = ds
			}
			return out
		}), "foldprops/cross-version"},
		{mk("normalize-keeps-settled-input", nil, func(s fold.State, w fold.Profile) fold.State {
			return s
		}), "foldprops/cross-version"},
	}
}

// Reference: DESIGN §6 — every broken fold is rejected by the property meant for it, within a
// bounded number of generated cases.
func TestKitRejectsBrokenFolds(t *testing.T) {
	props := map[string]Property{}
	for _, p := range Properties() {
		props[p.ID] = p
	}
	targets := map[string]Target{}
	var built []string
	for _, b := range brokenTargets() {
		targets[brokenFoldID(b.caught, b.tg.Name)] = b.tg
		built = append(built, brokenFoldID(b.caught, b.tg.Name))
	}
	for _, m := range proof.Registered(t, Mutants(), "kits/foldprops:TestKitRejectsBrokenFolds", built) {
		for _, caught := range m.CaughtBy {
			p, ok := props[caught]
			if !ok {
				t.Fatalf("mutant %s: unknown property %s", m.ID, caught)
			}
			var err error
			for seed := 0; seed < 300 && err == nil; seed++ {
				err = p.Check(targets[m.ID], p.Gen.Example(seed))
			}
			if err == nil {
				t.Errorf("foldprops/self-test %v: %s accepted broken fold %q in 300 cases, want a failure", m.Clauses, caught, m.ID)
				continue
			}
			proof.Rejected(t, m.ID, caught, proof.Failure(caught, nil, "the property against "+m.ID, err))
		}
	}
}

// Reference: spec §4 — the two pre-1.21 shapes, the late sibling failure after a terminal event
// (by interpretation, I-FOLD-20) and the legacy 1.23 entries are classified as documented
// exceptions, each under its own name, and any other difference as a defect.
func TestClassifyExceptions(t *testing.T) {
	mk := func(es ...[2]string) []spi.Envelope {
		out := make([]spi.Envelope, len(es))
		for i, e := range es {
			out[i] = spi.Envelope{ID: fmt.Sprint(i), WorkflowID: "w", ExecutionID: "x", EventType: e[0], Sequence: int64(i), Timestamp: int64(i), Payload: json.RawMessage(e[1])}
		}
		return out
	}
	p120, p123 := fold.MustProfile("1.20.0"), fold.MustProfile("1.23.0")
	for _, c := range []struct {
		name   string
		writer fold.Profile
		log    []spi.Envelope
		k      int
		want   Exception
	}{
		{"failed without error", p120, mk([2]string{"EXECUTION_STARTED", `{}`}, [2]string{"EXECUTION_FAILED", `{}`}), 1, ExceptionFailedWithoutError},
		{"resumeAs then caught failure", p120, mk([2]string{"EXECUTION_STARTED", `{}`}, [2]string{"EXECUTION_FAILED", `{"error":"e"}`},
			[2]string{"EXECUTION_RESUMED", `null`}, [2]string{"STEP_FAILED", `{"stepId":"a","error":"x"}`}), 3, ExceptionResumeAsCaughtFailure},
		{"late sibling failure after cancelled (I-FOLD-20)", p120, mk([2]string{"EXECUTION_STARTED", `{}`}, [2]string{"STEP_STARTED", `{"stepId":"s","attempt":1}`},
			[2]string{"EXECUTION_CANCELLED", `{}`}, [2]string{"STEP_FAILED", `{"stepId":"s","error":"late"}`}), 3, ExceptionLateStepFailureAfterTerminal},
		{"late sibling failure after completed (I-FOLD-20)", p120, mk([2]string{"EXECUTION_STARTED", `{}`}, [2]string{"STEP_STARTED", `{"stepId":"s","attempt":1}`},
			[2]string{"EXECUTION_COMPLETED", `{"output":1}`}, [2]string{"STEP_FAILED", `{"stepId":"s","error":"late"}`}, [2]string{"custom.audit", `{}`}), 4, ExceptionLateStepFailureAfterTerminal},
		{"late failure after a reopened failure then completion (I-FOLD-20, stale _error)", p120, mk([2]string{"EXECUTION_STARTED", `{}`}, [2]string{"EXECUTION_FAILED", `{"error":"e"}`},
			[2]string{"EXECUTION_RESUMED", `null`}, [2]string{"EXECUTION_COMPLETED", `{}`}, [2]string{"STEP_FAILED", `{"stepId":"s","error":"late"}`}), 4, ExceptionLateStepFailureAfterTerminal},
		{"legacy decisions", p123, mk([2]string{"EXECUTION_STARTED", `{}`}, [2]string{"DECISION_RECORDED", `{"id":"d","choice":1}`},
			[2]string{"DECISION_RECORDED", `{"id":"d","choice":2}`}), 1, ExceptionLegacyDecisions},
	} {
		full, _ := fold.Fold(fold.Current(), nil, c.log)
		snap, _ := fold.Fold(c.writer, nil, c.log[:c.k+1])
		n := fold.NormalizeSnapshotState(snap, c.writer)
		got, _ := fold.Fold(fold.Current(), &n, c.log[c.k+1:])
		v := Classify(got, full, c.writer, fold.Current(), c.log[:c.k+1])
		if v.Equal || v.Defect != "" || len(v.Exceptions) != 1 || v.Exceptions[0] != c.want {
			t.Errorf("foldprops/classify [S4.snapshot.pre-1.21-exceptions S4.v1_24.legacy-no-seq]: Classify(%s) = %+v, want exception %q", c.name, v, c.want)
		}
	}
	// A difference of another kind is a defect even when the log has an exception's shape.
	log := mk([2]string{"EXECUTION_STARTED", `{}`}, [2]string{"EXECUTION_FAILED", `{}`})
	full, _ := fold.Fold(fold.Current(), nil, log)
	bad := full
	bad.Frames = map[string]fold.Frame{"z": {StepID: "z", Status: "running", Attempt: json.RawMessage("1")}}
	if v := Classify(bad, full, p120, fold.Current(), log); v.Defect == "" {
		t.Errorf("foldprops/classify [S4.snapshot.pre-1.21-exceptions]: Classify(extra frame) = %+v, want a defect", v)
	}
	// The late-failure shape erases only a status the normaliser can leave (running or failed)
	// against a whole-log completed/cancelled: a suspended snapshot status stays a defect.
	log = mk([2]string{"EXECUTION_STARTED", `{}`}, [2]string{"EXECUTION_CANCELLED", `{}`}, [2]string{"STEP_FAILED", `{"stepId":"s","error":"late"}`})
	full, _ = fold.Fold(fold.Current(), nil, log)
	bad = full
	bad.Status = fold.StatusSuspended
	if v := Classify(bad, full, p120, fold.Current(), log); v.Defect == "" {
		t.Errorf("foldprops/classify [S4.snapshot.pre-1.21-exceptions I-FOLD-20]: Classify(late failure, suspended) = %+v, want a defect", v)
	}
	// A STEP_FAILED the fold rejects (__proto__ stepId) after a terminal event is not the shape.
	log = mk([2]string{"EXECUTION_STARTED", `{}`}, [2]string{"EXECUTION_CANCELLED", `{}`}, [2]string{"STEP_FAILED", `{"stepId":"__proto__","error":"late"}`})
	full, _ = fold.Fold(fold.Current(), nil, log)
	bad = full
	bad.Status = fold.StatusRunning
	if v := Classify(bad, full, p120, fold.Current(), log); v.Defect == "" {
		t.Errorf("foldprops/classify [S4.snapshot.pre-1.21-exceptions I-FOLD-20]: Classify(rejected late failure) = %+v, want a defect", v)
	}
}
