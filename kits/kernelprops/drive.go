package kernelprops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// Target is the kernel under test: the reference runtime with a Config modifier (options, or a
// deliberately broken Hooks set).
type Target struct {
	Name string
	Mod  func(*kernel.Config)
}

// Reference is the reference kernel, unmodified.
func Reference() Target { return Target{Name: "reference"} }

// errCrash is the injected process crash.
var errCrash = errors.New("kit: injected crash")

// crashStore fails the n-th append of the current run, or the first append holding a
// STEP_COMPLETED of one of the doubt steps, before writing it.
type crashStore struct {
	spi.EventStore
	mu        sync.Mutex
	countdown int
	doubt     map[string]bool // at-most-once step ids whose completion crashes (once)
}

func (s *crashStore) arm(n int) {
	s.mu.Lock()
	s.countdown = n
	s.mu.Unlock()
}

// armDoubt crashes the process at the first completion of one of the steps: the effect ran but
// its outcome is not in the log, so an at-most-once step parks in doubt (K9.3).
func (s *crashStore) armDoubt(ids map[string]bool) {
	s.mu.Lock()
	s.doubt = ids
	s.mu.Unlock()
}

func (s *crashStore) Append(ctx context.Context, id string, evs []spi.Envelope, opts spi.AppendOptions) error {
	s.mu.Lock()
	for _, e := range evs {
		var p struct {
			StepID string `json:"stepId"`
		}
		if e.EventType == "STEP_COMPLETED" && json.Unmarshal(e.Payload, &p) == nil && s.doubt[p.StepID] {
			s.doubt = nil
			s.mu.Unlock()
			return errCrash
		}
	}
	if s.countdown > 0 {
		s.countdown--
		if s.countdown == 0 {
			s.mu.Unlock()
			return errCrash
		}
	}
	s.mu.Unlock()
	return s.EventStore.Append(ctx, id, evs, opts)
}

// RunRecord is one call of the driver (Start, Resume, ResumeAs, Recover) and what flow code observed.
type RunRecord struct {
	Call    string
	From    int // log length when it began
	To      int // log length when it ended
	Trace   []Event
	Crashed bool
	Flow    string // the flow the run ran: "prog", or "prog2" from the code change on
}

// Outcome is a driven execution.
type Outcome struct {
	ExecID  string
	Log     []spi.Envelope
	Runs    []RunRecord
	Status  string
	Effects map[string]int
	rt      *kernel.Runtime
	store   *crashStore
	rec     *recorder
	// snapshots: save a snapshot after every run (the runtime must have a SnapshotStore).
	snapshots bool
	snapStore *memory.SnapshotStore
	// restart inputs: a crash kills the process, so the next run is on a fresh runtime
	tg          Target
	prog        Program
	sched       Schedule
	incarnation int
}

const maxRuns = 40

// newRuntime builds the runtime a scenario runs on: deterministic clock and ids, the flow-script
// fakes as its effects, the target's modifications, flows "prog" and (with a code change) "prog2".
func newRuntime(tg Target, store spi.EventStore, rec *recorder, prog Program, sched Schedule, incarnation int) (*kernel.Runtime, error) {
	cfg := kernel.Config{
		Store:      store,
		Now:        kernel.FixedClock(int64(1_000+100_000*incarnation), 1),
		NewID:      kernel.SequentialIDs(fmt.Sprintf("k%d", incarnation)),
		RunTimeout: 10 * time.Second,
		Warn:       func(kernel.Warning) {},
		Effects:    rec.fakes(),
	}
	if tg.Mod != nil {
		tg.Mod(&cfg)
	}
	rt, err := kernel.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := rt.Register(rec.def("prog", prog)); err != nil {
		return nil, err
	}
	if sched.ChangeAt >= 0 {
		if err := rt.Register(rec.def("prog2", prog.Insert(sched.ChangeAt))); err != nil {
			return nil, err
		}
	}
	return rt, nil
}

// newScenarioRecorder is the recorder of prog driven under sched (its code change included).
func newScenarioRecorder(prog Program, sched Schedule) *recorder {
	if sched.ChangeAt >= 0 {
		return newRecorder(prog, prog.Insert(sched.ChangeAt))
	}
	return newRecorder(prog)
}

// drive runs prog to completion under sched: crashes are recovered, parks are resumed with
// "answer-<gate>", and a code change is deployed by resumeAs at the first resume.
func drive(ctx context.Context, tg Target, prog Program, sched Schedule) (*Outcome, error) {
	return driveWith(ctx, tg, prog, sched, false)
}

func driveWith(ctx context.Context, tg Target, prog Program, sched Schedule, snapshots bool) (*Outcome, error) {
	store := &crashStore{EventStore: memory.NewEventStore()}
	rec := newScenarioRecorder(prog, sched)
	snaps := memory.NewSnapshotStore()
	if snapshots {
		inner := tg.Mod
		tg.Mod = func(c *kernel.Config) {
			if inner != nil {
				inner(c)
			}
			c.Snapshots = snaps
		}
	}
	rt, err := newRuntime(tg, store, rec, prog, sched, 0)
	if err != nil {
		return nil, err
	}
	o := &Outcome{ExecID: "x", rt: rt, store: store, rec: rec, snapshots: snapshots, snapStore: snaps, tg: tg, prog: prog, sched: sched}
	return o, o.continueDriving(ctx, prog, sched, 0)
}

// continueDriving drives o.ExecID until it completes; crash i of sched applies to run i+crashBase.
func (o *Outcome) continueDriving(ctx context.Context, prog Program, sched Schedule, crashBase int) error {
	changed := false
	cur := "prog"
	for i := 0; ; i++ {
		if i >= maxRuns {
			return fmt.Errorf("execution did not complete within %d runs", maxRuns)
		}
		if i == crashBase && sched.CrashInDoubt {
			o.store.armDoubt(prog.atMostOnceIDs())
		}
		if ci := i - crashBase; ci >= 0 && ci < len(sched.Crashes) {
			o.store.arm(sched.Crashes[ci])
		} else {
			o.store.arm(0)
		}
		log, err := o.store.Read(ctx, o.ExecID)
		if err != nil {
			return err
		}
		st, err := fold.Fold(fold.Current(), nil, log)
		if err != nil {
			return err
		}
		if st.Status == fold.StatusCompleted {
			o.Log, o.Status, o.Effects = log, st.Status, o.rec.snapshotEffects()
			return nil
		}
		mark := len(o.rec.trace())
		r := RunRecord{From: len(log), Flow: cur}
		switch {
		case len(log) == 0:
			r.Call = "start"
			_, err = o.rt.Start(ctx, "prog", o.ExecID, nil)
		case st.Status == fold.StatusSuspended && gateOf(st) == fold.GateInDoubt:
			// K9.3: an operator's verdict; the schedule's seed says whether the effect applied
			v := verdict(st, sched.Seed+int64(i))
			r.Call = "verdict " + string(v)
			_, err = o.rt.Resume(ctx, o.ExecID, fold.GateInDoubt, v)
		case st.Status == fold.StatusSuspended:
			gate := gateOf(st)
			if sched.ChangeAt >= 0 && !changed {
				r.Call = "resumeAs " + gate
				r.Flow = "prog2"
				_, err = o.rt.ResumeAs(ctx, o.ExecID, kernel.ResumeAsRequest{FlowID: "prog2", EventType: gate, Payload: answer(gate)})
			} else {
				r.Call = "resume " + gate
				_, err = o.rt.Resume(ctx, o.ExecID, gate, answer(gate))
			}
		case st.Status == fold.StatusRunning:
			r.Call = "recover"
			_, err = o.rt.Recover(ctx, o.ExecID)
		default:
			return fmt.Errorf("unexpected status %s", st.Status)
		}
		if err != nil && !errors.Is(err, errCrash) {
			return fmt.Errorf("%s: %w", r.Call, err)
		}
		r.Crashed = err != nil
		after, rerr := o.store.Read(ctx, o.ExecID)
		if rerr != nil {
			return rerr
		}
		r.To = len(after)
		r.Trace = o.rec.trace()[mark:]
		o.Runs = append(o.Runs, r)
		if o.snapshots && r.To > 0 {
			if _, err := o.rt.Snapshot(ctx, o.ExecID); err != nil {
				return fmt.Errorf("snapshot after %s: %w", r.Call, err)
			}
		}
		if !r.Crashed && strings.HasPrefix(r.Call, "resumeAs") {
			changed, cur = true, r.Flow
		}
		if r.Crashed && strings.HasPrefix(r.Call, "resumeAs") && r.To > r.From {
			changed, cur = true, r.Flow // the migration was appended before the crash
		}
		if r.Crashed { // the process died: restart on a fresh runtime over the same store
			o.incarnation++
			if o.rt, err = newRuntime(o.tg, o.store, o.rec, o.prog, o.sched, o.incarnation); err != nil {
				return err
			}
		}
	}
}

// verdict answers an in-doubt park (I-KERNEL-52): applied with an output, or not applied, by the
// parity of seed.
func verdict(st fold.State, seed int64) json.RawMessage {
	var on struct {
		Condition struct {
			StepID  string `json:"stepId"`
			Attempt int    `json:"attempt"`
		} `json:"condition"`
	}
	_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
	v := map[string]any{"stepId": on.Condition.StepID, "attempt": on.Condition.Attempt, "verdict": ingress.VerdictNotApplied}
	if seed%2 == 0 {
		v["verdict"], v["output"] = ingress.VerdictApplied, on.Condition.StepID+"-out"
	}
	b, _ := json.Marshal(v)
	return b
}

func answer(gate string) json.RawMessage { return json.RawMessage(`"answer-` + gate + `"`) }

func gateOf(st fold.State) string {
	var on struct {
		On string `json:"on"`
	}
	_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
	return on.On
}

// NDJSON renders a log one envelope per line, for failure reports.
func NDJSON(evs []spi.Envelope) string {
	var b strings.Builder
	for _, e := range evs {
		line, _ := json.Marshal(e)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// describe prints an outcome for a failure report: the runs and the log.
func (o *Outcome) describe() string {
	var b strings.Builder
	for i, r := range o.Runs {
		fmt.Fprintf(&b, "run %d: %s [log %d..%d) crashed=%v flow %s\n", i, r.Call, r.From, r.To, r.Crashed, r.Flow)
	}
	if o.sched.ChangeAt < 0 {
		fmt.Fprintf(&b, "flow script %q (docs/goldens.md; with this log saved as NDJSON, the input of loom-conform replay --script):\n%s\n", "prog", o.prog)
	} else {
		fmt.Fprintf(&b, "flow script %q (docs/goldens.md):\n%s\nflow script %q, deployed by resumeAs:\n%s\n", "prog", o.prog, "prog2", o.prog.Insert(o.sched.ChangeAt).Text("prog2"))
	}
	b.WriteString("log (NDJSON):\n")
	b.WriteString(NDJSON(o.Log))
	return b.String()
}
