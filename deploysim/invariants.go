package deploysim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// Invariant is one named check over a finished run.
type Invariant struct {
	ID      string
	Clauses []string
	Doc     string
}

// Invariants lists every invariant checked after a run.
func Invariants() []Invariant {
	return []Invariant{
		{"sim/acked-events", []string{"I-SIM-2", "I-STORE-1", "I-STORE-2"}, "every acknowledged envelope is in the final log exactly once, at its sequence"},
		{"sim/dense", []string{"I-SIM-2", "I-STORE-1"}, "every execution's sequences are 0..n-1"},
		{"sim/at-most-once", []string{"I-SIM-2", "S5.ingress.indoubt-verdict-recorded"}, "an at-most-once effect runs at most once per step"},
		{"sim/served-not-rerun", []string{"S2.execute.served-not-rerun", "S6.resume.is-migration"}, "no effect runs live once its step's completion is in the log"},
		{"sim/emit-once", []string{"S3.emit.once", "S3.emit.serve-skip", "I-SIM-2"}, "each flow-level emit is counted (_flowEmits) exactly as in a single-worker run"},
		{"sim/snapshot-every-k", []string{"S4.snapshot.every-k", "S3.snapshot.equivalence", "I-SIM-2", "I-SIM-4"}, "fold(snapshot@k, tail) == fold(log) for every k, at every profile of the fleet, and for every saved snapshot as every worker that reads it"},
		{"sim/zombie-fenced", []string{"S6.fencing.zombie", "I-STORE-6", "I-DISPATCH-4"}, "a worker whose lease moved on writes nothing: every append it tries is refused as fenced"},
		{"sim/lease-respected", []string{"I-DISPATCH-4", "I-SIM-3", "S6.fencing.zombie"}, "no append is acknowledged to a worker after it was told its lease is lost"},
		{"sim/one-owner", []string{"I-DISPATCH-4", "I-DISPATCH-3"}, "no package is delivered while another worker's lease on the execution is live"},
		{"sim/ends-visibly", []string{"I-SIM-2", "S6.resume.is-migration", "I-DISPATCH-3"}, "every execution ends completed, failed or cancelled, or parked visibly; never running with no owner"},
		{"sim/single-worker", []string{"S10.replay-unchanged", "S6.dispatch.stateless-workers", "I-SIM-2"}, "final states equal a single-worker run of the same inputs (status, output, frames, resume payloads, emit counts), except migrated executions"},
	}
}

func invariant(id string) Invariant {
	for _, iv := range Invariants() {
		if iv.ID == id {
			return iv
		}
	}
	panic("deploysim: unknown invariant " + id)
}

func (s *sim) fail(id, exec, op, got, want string) {
	iv := invariant(id)
	s.res.Violations = append(s.res.Violations, Violation{Invariant: id, Clauses: iv.Clauses, Execution: exec, Op: op, Got: got, Want: want, Repro: s.res.Repro})
}

func (s *sim) check() {
	ctx := context.Background()
	logs := map[string][]spi.Envelope{}
	for _, e := range s.execs {
		evs, _ := s.events.Read(ctx, e.id)
		logs[e.id] = evs
		s.res.Events += len(evs)
	}
	s.res.Executions = len(s.execs)

	// acked-events, dense
	where := map[string]int{}
	for id, evs := range logs {
		for i, e := range evs {
			if e.Sequence != int64(i) {
				s.fail("sim/dense", id, "Read", fmt.Sprintf("sequence %d at index %d", e.Sequence, i), "dense from 0")
				break
			}
			if _, dup := where[e.ID]; dup {
				s.fail("sim/acked-events", id, "Read", fmt.Sprintf("envelope id %q twice", e.ID), "each envelope once")
			}
			where[e.ID] = i
		}
	}
	for _, a := range s.acked {
		i, ok := where[a.env.ID]
		if !ok || logs[a.env.ExecutionID][i].Sequence != a.env.Sequence {
			s.fail("sim/acked-events", a.env.ExecutionID, "Read", fmt.Sprintf("acknowledged %s at %d (by %s) missing", a.env.EventType, a.env.Sequence, a.worker), "every acknowledged envelope")
		}
		if a.afterLost {
			s.fail("sim/lease-respected", a.env.ExecutionID, "Append", fmt.Sprintf("%s at %d acknowledged to %s after its lease was lost", a.env.EventType, a.env.Sequence, a.worker), "the worker stops")
		}
		if a.superseded {
			s.fail("sim/zombie-fenced", a.env.ExecutionID, "Append", fmt.Sprintf("%s at %d written by %s after its lease moved on", a.env.EventType, a.env.Sequence, a.worker), "fenced")
		}
	}
	for _, r := range s.refusals {
		if r.superseded && !errors.Is(r.err, spi.ErrFenced) && !errors.Is(r.err, errLeaseGone) && !(r.opening && errors.Is(r.err, spi.ErrConflict)) {
			s.fail("sim/zombie-fenced", r.exec, "Append", fmt.Sprintf("refused with %q for %s", r.err, r.worker), "refused as fenced")
		}
	}
	// effects
	runs := map[string]int{}
	for _, c := range s.effects {
		if c.atMostOnce {
			k := c.exec + "/" + c.step
			if runs[k]++; runs[k] == 2 {
				s.fail("sim/at-most-once", c.exec, "Effect", fmt.Sprintf("%s (step %s) run twice", c.tool, c.step), "at most once")
			}
		}
		if c.completedBefore && !c.superseded {
			s.fail("sim/served-not-rerun", c.exec, "Effect", fmt.Sprintf("%s (step %s, attempt %d) run live by %s after its completion was logged", c.tool, c.step, c.attempt, c.worker), "served from the log")
		}
	}
	for _, c := range s.claims {
		if c.overlapping != "" {
			s.fail("sim/one-owner", c.exec, "Claim", fmt.Sprintf("delivered to %s while %s held a live lease", c.worker, c.overlapping), "one owner at a time")
		}
	}
	s.checkSnapshots(logs)
	ref := s.reference()
	for _, e := range s.execs {
		st, err := fold.Fold(fold.Current(), nil, logs[e.id])
		if err != nil {
			s.fail("sim/ends-visibly", e.id, "Fold", err.Error(), "a foldable log")
			continue
		}
		switch st.Status {
		case fold.StatusCompleted, fold.StatusFailed, fold.StatusCancelled:
		case fold.StatusSuspended:
			if len(st.Variables.Values[fold.VarSuspendedOn]) == 0 {
				s.fail("sim/ends-visibly", e.id, "Fold", "suspended without _suspendedOn", "parked visibly")
			}
		default:
			owner := "no owner"
			if s.disp.Pending() > 0 {
				owner = "a package still queued"
			}
			s.fail("sim/ends-visibly", e.id, "Fold", fmt.Sprintf("status %s after the fleet settled (%s)", st.Status, owner), "completed, failed, cancelled or parked")
			continue
		}
		if migrated(logs[e.id]) {
			continue // documented exception: the migrated code's result is not the single-worker run's
		}
		var recorded string
		_ = json.Unmarshal(st.Variables.Values[fold.VarCodeHash], &recorded)
		code := "-v1"
		if i := strings.LastIndex(recorded, "-"); i >= 0 {
			code = recorded[i:]
		}
		r := ref[code][e.id]
		want, got := project(r), project(st)
		if d := cmp.Diff(want, got); d != "" {
			s.fail("sim/single-worker", e.id, "Fold", "a different final state:\n"+d, "the single-worker run's")
		}
		if d := cmp.Diff(r.Variables.FlowEmits, st.Variables.FlowEmits); d != "" {
			s.fail("sim/emit-once", e.id, "Fold", "_flowEmits differ (-single-worker +fleet):\n"+d, "each emit counted once")
		}
	}
}

func migrated(evs []spi.Envelope) bool {
	return slices.ContainsFunc(evs, func(e spi.Envelope) bool { return e.EventType == "EXECUTION_MIGRATED" })
}

type projection struct {
	Status         string
	Output, Error  string
	ResumePayloads []string
	Frames         map[string]string
}

func project(st fold.State) projection {
	p := projection{Status: st.Status, Output: canon(st.Variables.Values[fold.VarOutput]), Error: canon(st.Variables.Values[fold.VarError]), Frames: map[string]string{}}
	for _, r := range st.Variables.ResumePayloads {
		p.ResumePayloads = append(p.ResumePayloads, canon(r))
	}
	for id, f := range st.Frames {
		p.Frames[id] = f.Status + " " + canon(f.Output)
	}
	return p
}

func canon(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	b, err := fold.CanonicalJSON(raw)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// checkSnapshots folds, for every profile of the fleet, every prefix as a snapshot plus its tail,
// and every saved snapshot as every profile that reads its store.
func (s *sim) checkSnapshots(logs map[string][]spi.Envelope) {
	profiles := map[string]bool{}
	for _, p := range append(append([]string{}, s.sc.Profiles...), s.sc.Replace...) {
		profiles[p] = true
	}
	ids := make([]string, 0, len(logs))
	for id := range logs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for p := range profiles {
		prof := fold.MustProfile(p)
		for _, id := range ids {
			evs := logs[id]
			whole, err := fold.Fold(prof, nil, evs)
			if err != nil {
				continue
			}
			for k := 0; k+1 < len(evs); k++ {
				snap, _ := fold.Fold(prof, nil, evs[:k+1])
				got, _ := fold.Fold(prof, &snap, evs[k+1:])
				if !fold.Equal(whole, got) {
					s.fail("sim/snapshot-every-k", id, "Fold", fmt.Sprintf("profile %s: fold(snapshot@%d, tail) differs from fold(log)", p, k), "equal")
					break
				}
			}
		}
	}
	writers := make([]string, 0, len(s.snaps))
	for w := range s.snaps {
		writers = append(writers, w)
	}
	sort.Strings(writers)
	for _, w := range writers {
		ss := s.snaps[w]
		for _, snap := range ss.saved {
			evs := logs[snap.ExecutionID]
			st, err := fold.ParseState(snap.State)
			if err != nil || snap.Sequence+1 > int64(len(evs)) {
				s.fail("sim/snapshot-every-k", snap.ExecutionID, "LoadLatest", fmt.Sprintf("unreadable snapshot at %d: %v", snap.Sequence, err), "a state of the log")
				continue
			}
			for _, r := range ss.readers {
				prof := fold.MustProfile(r)
				whole, _ := fold.Fold(prof, nil, evs)
				got, _ := fold.Fold(prof, &st, evs[snap.Sequence+1:])
				if !fold.Equal(whole, got) {
					s.fail("sim/snapshot-every-k", snap.ExecutionID, "Fold", fmt.Sprintf("a %s worker folding the snapshot at %d written by a %s worker differs from folding the log", r, snap.Sequence, w), "equal")
				}
			}
		}
	}
}

// checksOf projects the invariants as spec checks.
func invariantChecks() []spec.Check {
	var out []spec.Check
	for _, iv := range Invariants() {
		out = append(out, spec.Check{ID: iv.ID, Kind: spec.KindTest, Clauses: iv.Clauses, Where: "deploysim:TestScenarioSweep"})
	}
	return out
}
