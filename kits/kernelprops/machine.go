package kernelprops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
)

// machine is the stateful property: several executions of generated programs share one runtime
// and one store; rapid interleaves starts, resumes (right and wrong gates), recoveries, injected
// crashes and runtime restarts, and every step checks the invariants.
type machine struct {
	tg    Target
	store *crashStore
	rt    *kernel.Runtime
	execs []*machineExec
	rec   *recorder // of every execution: their step ids carry the execution's id
}

type machineExec struct {
	id   string
	prog Program
}

func (m *machine) newRuntime() error {
	cfg := kernel.Config{Store: m.store, Now: kernel.FixedClock(1_000, 1), NewID: kernel.SequentialIDs(fmt.Sprintf("m%d", len(m.execs))),
		RunTimeout: 10 * time.Second, Warn: func(kernel.Warning) {}, Effects: m.rec.fakes()}
	if m.tg.Mod != nil {
		m.tg.Mod(&cfg)
	}
	rt, err := kernel.New(cfg)
	if err != nil {
		return err
	}
	for _, e := range m.execs {
		if err := rt.Register(m.rec.def("flow-"+e.id, e.prog)); err != nil {
			return err
		}
	}
	m.rt = rt
	return nil
}

func (m *machine) state(ctx context.Context, e *machineExec) (fold.State, error) {
	log, err := m.store.Read(ctx, e.id)
	if err != nil {
		return fold.State{}, err
	}
	return fold.Fold(fold.Current(), nil, log)
}

// pick draws an execution whose status satisfies want.
func (m *machine) pick(t *rapid.T, ctx context.Context, want func(string) bool) *machineExec {
	var cands []*machineExec
	for _, e := range m.execs {
		if st, err := m.state(ctx, e); err == nil && want(st.Status) {
			cands = append(cands, e)
		}
	}
	if len(cands) == 0 {
		t.Skip("no execution in that state")
	}
	return rapid.SampledFrom(cands).Draw(t, "exec")
}

func isErr(err error) bool { return err != nil && !errors.Is(err, errCrash) }

func (m *machine) actions(ctx context.Context) map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"start": func(t *rapid.T) {
			if len(m.execs) >= 4 {
				t.Skip("enough executions")
			}
			id := fmt.Sprintf("e%d", len(m.execs))
			e := &machineExec{id: id, prog: genProgram(6, true).Draw(t, "program").withStepPrefix(id + ".")}
			m.execs = append(m.execs, e)
			m.rec.index(e.prog)
			if err := m.rt.Register(m.rec.def("flow-"+e.id, e.prog)); err != nil {
				t.Fatal(err)
			}
			if _, err := m.rt.Start(ctx, "flow-"+e.id, e.id, nil); isErr(err) {
				t.Fatalf("start %s: %v", e.id, err)
			}
		},
		"resume": func(t *rapid.T) {
			e := m.pick(t, ctx, func(s string) bool { return s == fold.StatusSuspended })
			st, _ := m.state(ctx, e)
			g := gateOf(st)
			a := answer(g)
			if g == fold.GateInDoubt {
				a = verdict(st, int64(rapid.IntRange(0, 1).Draw(t, "applied")))
			}
			if _, err := m.rt.Resume(ctx, e.id, g, a); isErr(err) {
				t.Fatalf("resume %s at %s: %v", e.id, g, err)
			}
		},
		"wrongResume": func(t *rapid.T) {
			e := m.pick(t, ctx, func(string) bool { return true })
			before, _ := m.store.Read(ctx, e.id)
			et := rapid.SampledFrom([]string{"nope", "STEP_COMPLETED", "TIMER_FIRED", "EXECUTION_MIGRATED"}).Draw(t, "eventType")
			_, err := m.rt.Resume(ctx, e.id, et, answer("forged"))
			var refused *ingress.ResumeRefusedError
			var invalid *ingress.ResumePayloadValidationError
			if !errors.As(err, &refused) && !errors.As(err, &invalid) {
				t.Fatalf("resume %s with %s = %v, want a refusal", e.id, et, err)
			}
			if after, _ := m.store.Read(ctx, e.id); len(after) != len(before) {
				t.Fatalf("refused resume of %s appended %d envelopes [S5.ingress.refusal-appends-nothing]", e.id, len(after)-len(before))
			}
		},
		"recover": func(t *rapid.T) {
			e := m.pick(t, ctx, func(s string) bool { return s == fold.StatusRunning })
			if _, err := m.rt.Recover(ctx, e.id); isErr(err) {
				t.Fatalf("recover %s: %v", e.id, err)
			}
		},
		"crashSoon": func(t *rapid.T) {
			m.store.arm(rapid.IntRange(1, 6).Draw(t, "after"))
		},
		"restart": func(t *rapid.T) {
			if err := m.newRuntime(); err != nil {
				t.Fatal(err)
			}
		},
		"": func(t *rapid.T) { m.check(t, ctx) },
	}
}

// check is the invariant: every log folds; every completed execution holds each of its exact
// emits exactly once and ran each effect once per recorded start.
func (m *machine) check(t *rapid.T, ctx context.Context) {
	for _, e := range m.execs {
		log, err := m.store.Read(ctx, e.id)
		if err != nil {
			t.Fatal(err)
		}
		st, err := fold.Fold(fold.Current(), nil, log)
		if err != nil {
			t.Fatalf("%s: log does not fold: %v\n%s", e.id, err, NDJSON(log))
		}
		if st.Status != fold.StatusCompleted {
			continue
		}
		if err := checkOnce(e.prog, log, func(int) int { return 1 }); err != nil {
			t.Fatalf("%s (%s): %v\n%s", e.id, e.prog, err, NDJSON(log))
		}
		effects := m.rec.snapshotEffects()
		maps.DeleteFunc(effects, func(id string, _ int) bool { return !strings.HasPrefix(id, e.id+".") })
		if err := checkEffectsPerStart(log, effects); err != nil {
			t.Fatalf("%s (%s): %v\n%s", e.id, e.prog, err, NDJSON(log))
		}
	}
}

// RunMachine runs the stateful property against tg (rapid's case count).
func runMachine(rt *rapid.T, tg Target) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	m := &machine{tg: tg, store: &crashStore{EventStore: memory.NewEventStore()}, rec: newRecorder()}
	if err := m.newRuntime(); err != nil {
		rt.Fatal(err)
	}
	rt.Repeat(m.actions(ctx))
}
