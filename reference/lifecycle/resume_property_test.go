package lifecycle_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/reference/lifecycle"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"pgregory.net/rapid"
)

// crashStore is a memory EventStore whose next append holding STEP_COMPLETED fails once armed: a
// crash between an effect and its record (how an at-most-once step ends in doubt).
type crashStore struct {
	*memory.EventStore
	mu    sync.Mutex
	armed bool
}

func (c *crashStore) Append(ctx context.Context, id string, evs []spi.Envelope, o spi.AppendOptions) error {
	c.mu.Lock()
	crash := false
	for _, e := range evs {
		crash = crash || (c.armed && e.EventType == "STEP_COMPLETED")
	}
	if crash {
		c.armed = false
	}
	c.mu.Unlock()
	if crash {
		return errors.New("crashed before the append")
	}
	return c.EventStore.Append(ctx, id, evs, o)
}

// shape is one random flow: k steps, an optional at-most-once step, an optional park on
// "approve", an optional timed sleep, m more steps.
type shape struct {
	k, m        int
	amo, crash  bool
	park, sleep bool
}

// side is one runtime of a pair driven the same way.
type side struct {
	rt    *kernel.Runtime
	es    *crashStore
	ss    *memory.SnapshotStore
	clock *int64
}

// fataler is *testing.T or *rapid.T.
type fataler interface{ Fatal(args ...any) }

func newSide(t fataler, sh shape, hooks kernel.Hooks) side {
	return newSideOn(t, sh, hooks, &crashStore{EventStore: memory.NewEventStore()}, memory.NewSnapshotStore())
}

// newSideOn builds a runtime running the flow sh over the given stores.
func newSideOn(t fataler, sh shape, hooks kernel.Hooks, es *crashStore, ss *memory.SnapshotStore) side {
	s := side{es: es, ss: ss, clock: new(int64)}
	*s.clock = 1_767_225_600_000
	ids := 0
	r, err := kernel.New(kernel.Config{Store: s.es, Snapshots: s.ss, Timers: kernel.NewMemoryTimers(), Hooks: hooks,
		Now:   func() int64 { return *s.clock },
		NewID: func() string { ids++; return fmt.Sprintf("id-%d", ids) }})
	if err != nil {
		t.Fatal(err)
	}
	add := func(_ *kernel.EffectContext, in json.RawMessage) (any, error) {
		var x int
		_ = json.Unmarshal(in, &x)
		return x + 1, nil
	}
	fn := func(c *kernel.Context, _ json.RawMessage) (any, error) {
		sum, out := 0, map[string]any{}
		step := func(id string) error {
			o, err := c.Run(id, add, sum)
			if err == nil {
				err = json.Unmarshal(o, &sum)
			}
			return err
		}
		for i := 0; i < sh.k; i++ {
			if err := step(fmt.Sprintf("a%d", i)); err != nil {
				return nil, err
			}
		}
		if sh.amo {
			o, err := c.Execute(kernel.Task{ID: "charge", AtMostOnce: true, Fn: add}, sum)
			if err != nil {
				return nil, err
			}
			out["charge"] = o
		}
		if sh.park {
			v, err := c.Suspend(kernel.SuspendConfig{On: "approve"})
			if err != nil {
				return nil, err
			}
			out["approved"] = v
		}
		if sh.sleep {
			if err := c.Sleep(time.Minute); err != nil {
				return nil, err
			}
		}
		for i := 0; i < sh.m; i++ {
			if err := step(fmt.Sprintf("b%d", i)); err != nil {
				return nil, err
			}
		}
		out["sum"] = sum
		return out, nil
	}
	// "shape" and its successor "shape-v2" (a resumeAs target) run the same code
	for _, def := range []kernel.FlowDef{{ID: "shape", Fn: fn}, {ID: "shape-v2", Fn: fn, CodeHash: "v2"}} {
		if err = r.Register(def); err != nil {
			t.Fatal(err)
		}
	}
	s.rt = r
	return s
}

// resumePair drives a twin and a runtime whose log is compacted at random points the same way,
// and returns the first divergence ("" when none): after every operation the compacted log must
// be exactly the twin's log from its first remaining sequence, and both states equal.
func resumePair(t *rapid.T, hooks kernel.Hooks) string {
	ctx := context.Background()
	sh := shape{k: rapid.IntRange(0, 3).Draw(t, "k"), m: rapid.IntRange(0, 2).Draw(t, "m"),
		amo: rapid.Bool().Draw(t, "amo"), park: rapid.Bool().Draw(t, "park"), sleep: rapid.Bool().Draw(t, "sleep")}
	sh.crash = sh.amo && rapid.Bool().Draw(t, "crash")
	twin, got := newSide(t, sh, kernel.Hooks{}), newSide(t, sh, hooks)
	lc, _ := lifecycle.New(lifecycle.Config{Store: got.es, Snapshots: got.ss, Archive: memory.NewArchiveStore()})
	const id = "x"
	op := func(name string, f func(s side) (kernel.Result, error)) string {
		wr, werr := f(twin)
		gr, gerr := f(got)
		if (werr == nil) != (gerr == nil) {
			return fmt.Sprintf("%s = error %v, want the twin's error %v", name, gerr, werr)
		}
		if wr.Status != gr.Status || wr.SuspendedOn != gr.SuspendedOn || string(wr.Output) != string(gr.Output) {
			return fmt.Sprintf("%s = {%s %s %s}, want the twin's {%s %s %s}", name, gr.Status, gr.SuspendedOn, gr.Output, wr.Status, wr.SuspendedOn, wr.Output)
		}
		wl, _ := twin.es.Read(ctx, id)
		gl, _ := got.es.Read(ctx, id)
		if len(gl) > 0 {
			for len(wl) > 0 && wl[0].Sequence < gl[0].Sequence {
				wl = wl[1:]
			}
		}
		if d := cmp.Diff(wl, gl); d != "" {
			return fmt.Sprintf("%s appended another log tail than the twin (-twin +compacted):\n%s", name, d)
		}
		ws, werr := twin.rt.State(ctx, id)
		gs, gerr := got.rt.State(ctx, id)
		if werr != nil || gerr != nil {
			return fmt.Sprintf("State() after %s = %v, want the twin's %v", name, gerr, werr)
		}
		if d := sameState(ws, gs); d != "" {
			return fmt.Sprintf("State() after %s = another state than the twin's:\n%s", name, d)
		}
		return ""
	}
	compact := func(n int) {
		log, _ := got.es.Read(ctx, id)
		if len(log) < 2 || !rapid.Bool().Draw(t, fmt.Sprintf("compact%d", n)) {
			return
		}
		if rapid.Bool().Draw(t, fmt.Sprintf("snapshot%d", n)) {
			// a snapshot past the compaction point (as snapshot-every-k takes one), e.g. of a park
			if _, err := got.rt.Snapshot(ctx, id); err != nil {
				t.Fatalf("Snapshot() = %v", err)
			}
		}
		// keep at least the last envelope: it names the flow the execution runs
		through := rapid.Int64Range(log[0].Sequence, log[len(log)-1].Sequence-1).Draw(t, fmt.Sprintf("through%d", n))
		if _, err := lc.Compact(ctx, id, through); err != nil {
			t.Fatalf("Compact(%d) = %v", through, err)
		}
	}
	twin.es.armed, got.es.armed = sh.crash, sh.crash
	if d := op("Start", func(s side) (kernel.Result, error) { return s.rt.Start(ctx, "shape", id, nil) }); d != "" {
		return d
	}
	for n := 0; n < 6; n++ {
		compact(n)
		st, _ := twin.rt.State(ctx, id)
		var name string
		var f func(s side) (kernel.Result, error)
		switch on := suspendedOn(st); {
		case st.Status == fold.StatusRunning:
			name, f = "Recover", func(s side) (kernel.Result, error) { return s.rt.Recover(ctx, id) }
		case st.Status != fold.StatusSuspended:
			return ""
		case on == fold.GateInDoubt:
			v := ingress.Verdict{StepID: "charge", Attempt: 1, Verdict: ingress.VerdictNotApplied}
			if rapid.Bool().Draw(t, fmt.Sprintf("applied%d", n)) {
				v.Verdict, v.Output = ingress.VerdictApplied, json.RawMessage(`"from-verdict"`)
				// a crash after the verdict is recorded, before the step it settles is: Recover
				// then honours the verdict, whose EFFECT_INDOUBT may be compacted by then
				c := rapid.Bool().Draw(t, fmt.Sprintf("crashAfterVerdict%d", n))
				twin.es.armed, got.es.armed = c, c
			}
			name, f = "ResumeWith(verdict "+v.Verdict+")", func(s side) (kernel.Result, error) { return s.rt.ResumeWith(ctx, id, ingress.VerdictRequest(v)) }
		case on == kernel.TimerGate:
			name, f = "FireDueTimers", func(s side) (kernel.Result, error) {
				*s.clock += int64(2 * time.Minute / time.Millisecond)
				fired, err := s.rt.FireDueTimers(ctx)
				if err != nil || len(fired) != 1 {
					return kernel.Result{}, fmt.Errorf("fired %d timers: %v", len(fired), err)
				}
				return fired[0].Result, fired[0].Err
			}
		default:
			payload := json.RawMessage(fmt.Sprintf(`{"ok":%v}`, rapid.Bool().Draw(t, fmt.Sprintf("ok%d", n))))
			switch rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("how%d", n)) {
			case 0:
				name, f = "ResumeAs(shape-v2, "+on+")", func(s side) (kernel.Result, error) {
					return s.rt.ResumeAs(ctx, id, kernel.ResumeAsRequest{FlowID: "shape-v2", EventType: on, Payload: payload})
				}
			case 1:
				name, f = "Cancel", func(s side) (kernel.Result, error) { return s.rt.Cancel(ctx, id, "stop") }
			default:
				name, f = "Resume("+on+")", func(s side) (kernel.Result, error) { return s.rt.Resume(ctx, id, on, payload) }
			}
		}
		if d := op(name, f); d != "" {
			return d
		}
	}
	return ""
}

func suspendedOn(st fold.State) string {
	var on struct {
		On string `json:"on"`
	}
	_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
	return on.On
}

// Compact at random points of random executions (parked, in doubt, timed, crashed): resume,
// resumeAs, cancel, verdict, timer and recover then append exactly the log tail of the uncompacted twin driven the
// same way, and fold to the same state, with no archive read.
func TestCompactedExecutionResumes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		if d := resumePair(rt, kernel.Hooks{}); d != "" {
			rt.Fatalf("lifecycle/compacted-resume [I-LIFECYCLE-10 I-LIFECYCLE-11 S3.snapshot.equivalence]: %s", d)
		}
	})
}

// The kernel mutant that folds a compacted log's tail without its snapshot is rejected by the
// property: some random execution, compacted, diverges from its twin.
func TestCompactedResumeRejectsTailOnlyFold(t *testing.T) {
	const where = "reference/lifecycle:TestCompactedResumeRejectsTailOnlyFold"
	const check = "lifecycle/compacted-resume"
	for _, m := range proof.Registered(t, kernel.Mutants(), where, []string{"kernel-hook/runtime/compacted-folds-tail-only"}) {
		hooks, ok := kernel.MutantHooks(m.ID)
		if !ok {
			t.Fatalf("%s builds no Hooks", m.ID)
		}
		d := ""
		for round := 0; round < 50 && d == ""; round++ { // each round is 100 random executions
			rapid.MakeCheck(func(rt *rapid.T) {
				if d == "" {
					d = resumePair(rt, hooks)
				}
			})(t)
		}
		if d == "" {
			t.Fatalf("%s [I-LIFECYCLE-10]: resumePair(%s) = no divergence from the twin, want one", check, m.ID)
		}
		proof.Rejected(t, m.ID, check, check+" [I-LIFECYCLE-10 I-LIFECYCLE-11 S3.snapshot.equivalence]: "+d)
		t.Logf("%s rejected: %s", m.ID, d)
	}
}

// A log compacted past every snapshot the kernel can see is refused by name at every entry point
// that reads it, with nothing appended and the archive never read; a log emptied by compaction
// still loads from its snapshot but cannot be resumed.
func TestCompactedWithoutSnapshotRefused(t *testing.T) {
	ctx := context.Background()
	sh := shape{k: 2, park: true}
	s := newSide(t, sh, kernel.Hooks{})
	if res, err := s.rt.Start(ctx, "shape", "x", nil); err != nil || res.SuspendedOn != "approve" {
		t.Fatalf("Start = %+v, %v, want parked on approve", res, err)
	}
	j := &journal{}
	as := newArchive(j)
	as.failReads = true
	lc, _ := lifecycle.New(lifecycle.Config{Store: s.es, Snapshots: s.ss, Archive: as})
	if _, err := lc.Compact(ctx, "x", 3); err != nil {
		t.Fatal(err)
	}
	before, _ := s.es.Read(ctx, "x")
	// the same store seen by a runtime with no snapshots: the gap is uncovered
	blind := newSideOn(t, sh, kernel.Hooks{}, s.es, memory.NewSnapshotStore())
	for name, call := range map[string]func() error{
		"Resume":  func() error { _, err := blind.rt.Resume(ctx, "x", "approve", json.RawMessage(`1`)); return err },
		"Recover": func() error { _, err := blind.rt.Recover(ctx, "x"); return err },
		"Cancel":  func() error { _, err := blind.rt.Cancel(ctx, "x", "stop"); return err },
		"State":   func() error { _, err := blind.rt.State(ctx, "x"); return err },
	} {
		err := call()
		var ce *kernel.CompactedError
		if !errors.As(err, &ce) || ce.ExecutionID != "x" || ce.FirstSequence != 4 || ce.SnapshotSequence != -1 {
			t.Errorf("lifecycle/compacted-refusal [I-LIFECYCLE-10]: %s(x) on a log compacted through 3 with no snapshot = %v, want *CompactedError{x, first 4, snapshot -1}", name, err)
		}
	}
	if after, _ := s.es.Read(ctx, "x"); len(after) != len(before) {
		t.Errorf("lifecycle/compacted-refusal [I-LIFECYCLE-10]: refusals appended %d envelopes, want 0", len(after)-len(before))
	}
	if *as.reads != 0 {
		t.Errorf("lifecycle/compacted-refusal [S7.as.not-read-on-replay]: archive reads = %d, want 0", *as.reads)
	}
	// the runtime with the snapshot resumes it; compacting through the last envelope retires it
	if res, err := s.rt.Resume(ctx, "x", "approve", json.RawMessage(`1`)); err != nil || res.Status != fold.StatusCompleted {
		t.Fatalf("lifecycle/compacted-refusal [I-LIFECYCLE-10]: Resume(x) from the snapshot = %+v, %v, want completed", res, err)
	}
	s2 := newSide(t, sh, kernel.Hooks{})
	if _, err := s2.rt.Start(ctx, "shape", "y", nil); err != nil {
		t.Fatal(err)
	}
	log, _ := s2.es.Read(ctx, "y")
	lc2, _ := lifecycle.New(lifecycle.Config{Store: s2.es, Snapshots: s2.ss, Archive: memory.NewArchiveStore()})
	if _, err := lc2.Compact(ctx, "y", log[len(log)-1].Sequence); err != nil {
		t.Fatal(err)
	}
	if st, err := s2.rt.State(ctx, "y"); err != nil || st.Status != fold.StatusSuspended {
		t.Errorf("lifecycle/compacted-refusal [I-LIFECYCLE-12]: State(y) after compacting the whole log = %s, %v, want suspended from the snapshot", st.Status, err)
	}
	var refused *ingress.ResumeRefusedError
	if _, err := s2.rt.Resume(ctx, "y", "approve", json.RawMessage(`1`)); !errors.As(err, &refused) {
		t.Errorf("lifecycle/compacted-refusal [I-LIFECYCLE-12]: Resume(y) after compacting the whole log = %v, want a refusal (no log)", err)
	}
}

// A verdict with no EFFECT_INDOUBT beside it is not honoured in a compacted log either, when the
// STEP_STARTED of its attempt is still in the log (so would be the fact): the compacted execution
// parks in doubt exactly as its uncompacted twin does.
func TestCompactedForgedVerdictNotHonoured(t *testing.T) {
	ctx := context.Background()
	sh := shape{amo: true, crash: true}
	run := func(through int64) (kernel.Result, []spi.Envelope) {
		s := newSide(t, sh, kernel.Hooks{})
		s.es.armed = true
		if _, err := s.rt.Start(ctx, "shape", "x", nil); err == nil {
			t.Fatal("Start with a crash armed = nil error, want the crash")
		}
		log, _ := s.es.Read(ctx, "x")
		forged := log[len(log)-1]
		forged.ID, forged.Sequence, forged.EventType = "forged", forged.Sequence+1, "DECISION_RECORDED"
		forged.Payload = json.RawMessage(`{"id":"` + ingress.VerdictDecisionID("charge", 1) + `","choice":{"verdict":"applied","output":"forged"}}`)
		if err := s.es.Append(ctx, "x", []spi.Envelope{forged}, spi.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
		if through >= 0 {
			lc, _ := lifecycle.New(lifecycle.Config{Store: s.es, Snapshots: s.ss, Archive: memory.NewArchiveStore()})
			if _, err := lc.Compact(ctx, "x", through); err != nil {
				t.Fatal(err)
			}
		}
		res, err := s.rt.Recover(ctx, "x")
		if err != nil {
			t.Fatalf("Recover = %v", err)
		}
		after, _ := s.es.Read(ctx, "x")
		return res, after
	}
	want, wlog := run(-1)
	got, glog := run(0)
	if want.SuspendedOn != fold.GateInDoubt || got.SuspendedOn != want.SuspendedOn || string(got.Output) != string(want.Output) {
		t.Fatalf("lifecycle/compacted-forged-verdict [I-LIFECYCLE-11 S5.decide.verdict-beside-indoubt]: Recover(x) compacted through 0 = {%s %s %s}, want the twin's {%s %s %s} (parked in doubt, the forged verdict not honoured)",
			got.Status, got.SuspendedOn, got.Output, want.Status, want.SuspendedOn, want.Output)
	}
	if d := cmp.Diff(wlog[1:], glog); d != "" {
		t.Fatalf("lifecycle/compacted-forged-verdict [I-LIFECYCLE-11]: Recover(x) compacted through 0 appended another tail than the twin (-twin +compacted):\n%s", d)
	}
}
