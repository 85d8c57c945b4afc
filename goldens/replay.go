package goldens

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// FixtureReport is what ReplayAsFixture observed.
type FixtureReport struct {
	// Replayed lists the executions replayed (parked or terminal ones; an execution holding only
	// its EXECUTION_STARTED has nothing to replay).
	Replayed []string
	// Effects counts effect invocations during the replay (must be 0).
	Effects int64
}

// FixtureError is a replay that changed something: the execution, what and, when the log or
// the state changed, the first divergence.
type FixtureError struct {
	ExecutionID string
	What        string
	Divergence  *Divergence
}

func (e *FixtureError) Error() string {
	s := fmt.Sprintf("execution %s: %s", e.ExecutionID, e.What)
	if e.Divergence != nil {
		s += ": " + e.Divergence.String()
	}
	return s
}

// ReplayAsFixture re-runs a script over a recorded log in a fresh store seeded with it, on the
// current kernel (profile current, whatever profile wrote the log): for each parked or terminal
// execution of the log the replay must append nothing, end in the recorded status (and output),
// fold byte-identically at the profile the log was written at, and invoke no effect — the log
// answers every syscall (spec §3, §10). mod, when set, modifies the runtime configuration.
func ReplayAsFixture(ctx context.Context, s *flowscript.Script, d *flowscript.Driver, log []spi.Envelope, mod func(*kernel.Config)) (*FixtureReport, error) {
	store := memory.NewEventStore()
	var execs []string
	byExec := map[string][]spi.Envelope{}
	for _, e := range log {
		if _, ok := byExec[e.ExecutionID]; !ok {
			execs = append(execs, e.ExecutionID)
		}
		byExec[e.ExecutionID] = append(byExec[e.ExecutionID], e)
	}
	for _, id := range execs {
		if err := store.Append(ctx, id, byExec[id], spi.AppendOptions{}); err != nil {
			return nil, fmt.Errorf("seeding %s: %w", id, err)
		}
	}
	var calls atomic.Int64
	fx := flowscript.Effects()
	for name, def := range fx {
		fn := def.Fn
		def.Fn = func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
			calls.Add(1)
			return fn(ec, in)
		}
		fx[name] = def
	}
	cfg := kernel.Config{Store: store, Effects: fx, Now: flowscript.NewClock(d.Clock).Now, NewID: kernel.SequentialIDs("replay"),
		Warn: func(kernel.Warning) {}, Features: kernel.Features{ContinueAsNew: true, Receive: true, Select: true}}
	if mod != nil {
		mod(&cfg)
	}
	rt, err := kernel.New(cfg)
	if err != nil {
		return nil, err
	}
	opts := flowscript.Options{SerialBranches: true}
	if err := rt.Register(flowscript.Def(s, opts)); err != nil {
		return nil, err
	}
	for _, a := range d.Actions {
		if a.Script != nil && a.Script.ID != s.ID {
			if err := rt.Register(flowscript.Def(a.Script, opts)); err != nil {
				return nil, err
			}
		}
	}
	rep := &FixtureReport{}
	profile := d.ProfileOf()
	for _, id := range execs {
		want := byExec[id]
		st0, err := fold.Fold(profile, nil, want)
		if err != nil {
			return nil, &FixtureError{ExecutionID: id, What: "the recorded log does not fold: " + err.Error()}
		}
		if st0.Status == fold.StatusContinued || st0.Status == fold.StatusCancelled {
			// an outside action or continueAsNew ended it: a read-only replay cannot re-make
			// either (I-GOLDEN-3); the re-run under the driver compares it instead
			continue
		}
		if st0.Status == fold.StatusRunning {
			if st0.Sequence == 0 {
				continue // started, never run: nothing to replay
			}
			return nil, &FixtureError{ExecutionID: id, What: "the recorded log ends running past its start (a crash never recovered): nothing can replay it read-only"}
		}
		res, derr := rt.Drive(ctx, id)
		got, rerr := store.Read(ctx, id)
		if rerr != nil {
			return nil, rerr
		}
		if dv := DiffLogs(want, got, DiffOptions{Strict: true}); dv != nil {
			return nil, &FixtureError{ExecutionID: id, What: "the replay appended to the log", Divergence: dv}
		}
		if derr != nil {
			return nil, &FixtureError{ExecutionID: id, What: "the replay diverged: " + derr.Error()}
		}
		if res.Status != st0.Status {
			return nil, &FixtureError{ExecutionID: id, What: fmt.Sprintf("the replay ended %s, the log %s", res.Status, st0.Status)}
		}
		if st0.Status == fold.StatusCompleted && !spi.SameJSON(res.Output, st0.Variables.Values[fold.VarOutput]) {
			return nil, &FixtureError{ExecutionID: id, What: fmt.Sprintf("the replay returned %s, the log %s", res.Output, st0.Variables.Values[fold.VarOutput])}
		}
		st1, err := fold.Fold(profile, nil, got)
		if err != nil {
			return nil, err
		}
		a, _ := fold.CanonicalState(st0)
		b, _ := fold.CanonicalState(st1)
		if dv := DiffRuns(nil, nil, a, b, DiffOptions{Strict: true}); dv != nil {
			return nil, &FixtureError{ExecutionID: id, What: "the replayed log folds differently", Divergence: dv}
		}
		rep.Replayed = append(rep.Replayed, id)
	}
	rep.Effects = calls.Load()
	if rep.Effects != 0 {
		return rep, &FixtureError{ExecutionID: execs[0], What: fmt.Sprintf("the replay invoked %d effect(s) the log already answers", rep.Effects)}
	}
	return rep, nil
}
