package kernelprops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// Scenario is one generated case: a program and how it is driven.
type Scenario struct {
	Program  Program
	Schedule Schedule
	// Profile is the event-schema profile the runtime folds with ("" = current); only the
	// snapshot-equivalence property draws it.
	Profile string
}

// GoString prints the case as rapid reports it.
func (s Scenario) GoString() string {
	return fmt.Sprintf("program (a flow script, docs/goldens.md):\n%s\nschedule: %+v\nprofile: %q", s.Program, s.Schedule, s.Profile)
}

// Property is one check of the kit: an id, the clauses it enforces, its generator and the check
// of one case against a target (nil error = holds).
type Property struct {
	ID       string
	Clauses  []string
	Gen      *rapid.Generator[Scenario]
	Examples []Scenario // fixed cases run before the random ones (the worked examples)
	Check    func(ctx context.Context, tg Target, s Scenario) error
}

func genScenario(maxOps int, parallel, codeChange bool) *rapid.Generator[Scenario] {
	return rapid.Custom(func(t *rapid.T) Scenario {
		p := genProgram(maxOps, parallel).Draw(t, "program")
		return Scenario{Program: p, Schedule: genSchedule(p, codeChange).Draw(t, "schedule")}
	})
}

// snapshotProfiles are the profiles the snapshot-equivalence property draws: the oldest the fold
// reads, the one before each behaviour step the snapshot reading depends on, and the current one.
var snapshotProfiles = []string{"1.20.0", "1.23.0", "1.25.0", "1.26.0"}

// genProfileScenario draws a scenario and a profile. Before 1.21.0 a STEP_FAILED fails the
// execution, so at those profiles the program keeps no step that can fail.
func genProfileScenario(maxOps int) *rapid.Generator[Scenario] {
	return rapid.Custom(func(t *rapid.T) Scenario {
		s := genScenario(maxOps, true, true).Draw(t, "scenario")
		s.Profile = rapid.SampledFrom(snapshotProfiles).Draw(t, "profile")
		if !fold.MustProfile(s.Profile).AtLeast(21) {
			s.Program = s.Program.withoutStepFailures()
			s.Schedule.ChangeAt = min(s.Schedule.ChangeAt, len(s.Program))
		}
		return s
	})
}

// target returns tg running at the scenario's profile.
func (s Scenario) target(tg Target) Target {
	if s.Profile == "" {
		return tg
	}
	p := fold.MustProfile(s.Profile)
	return Target{Name: tg.Name + "@" + s.Profile, Mod: func(c *kernel.Config) {
		if tg.Mod != nil {
			tg.Mod(c)
		}
		c.Profile = p
	}}
}

// examples are the worked examples of emit serving as scenarios (WORKED-EXAMPLES.md).
func examples() []Scenario {
	emit := func(c int) flowscript.Stmt { return stmt(kEmit, "", c) }
	step := func(id string) flowscript.Stmt { return stmt(kStep, id, 0) }
	gate := func(id string) flowscript.Stmt { return stmt(kSuspend, id, 0) }
	type B = []flowscript.Stmt
	f := Program{step("A"), emit(1), stmt(kDecide, "route", 0), emit(2), gate("approve"), emit(1), step("B"), emit(3)}
	xsx := Program{emit(1), step("S"), emit(1), gate("g")}
	par := Program{parallelOf(B{step("slow")}, B{emit(1)}), emit(2), gate("g")}
	unserved := Program{stmt(kFail, "f", 0), emit(1), gate("g"), emit(2)}
	none := Schedule{ChangeAt: -1}
	// two branches and the sequential code after them emit the same content in one segment: on
	// the re-run each branch counts its own emits, so both branch copies are served whichever runs
	// first (I-KERNEL-18)
	twins := Program{parallelOf(B{emit(1)}, B{emit(1)}), emit(1), gate("g")}
	outcomes := Program{stmt(kTyped, "t", 0), emit(1), stmt(kTimeout, "o", 0), emit(2), gate("g"),
		stmt(kCancel, "x", 0), stmt(kDecideThrow, "dt", 0), stmt(kEmitNaN, "", 0), stmt(kEmitFact, "", 3),
		stmt(kEffectEmit, "fx", 4), emit(2)}
	// a crash at the at-most-once step's STEP_COMPLETED (the fifth append) parks it in doubt; the
	// verdict is applied or not by the seed's parity
	doubt := Program{step("A"), stmt(kAtMostOnce, "m", 0), emit(1), gate("g"), emit(2)}
	return []Scenario{
		{Program: doubt, Schedule: Schedule{Crashes: []int{5}, ChangeAt: -1, Seed: 0}},
		{Program: doubt, Schedule: Schedule{Crashes: []int{5}, ChangeAt: -1, Seed: 1}},
		{Program: twins, Schedule: none},
		{Program: outcomes, Schedule: none},
		{Program: outcomes, Schedule: Schedule{Crashes: []int{4, 2}, ChangeAt: -1}},
		{Program: f, Schedule: none},                                      // 1, 2: fresh run, resume; E3 repeats E1's payload in segment 1
		{Program: f, Schedule: Schedule{Crashes: []int{5}, ChangeAt: -1}}, // 3: crash after E1, before route
		{Program: f, Schedule: Schedule{Crashes: []int{3}, ChangeAt: -1}}, // 4: crash while A runs
		{Program: xsx, Schedule: none},                                    // 5: same content twice
		{Program: xsx, Schedule: Schedule{ChangeAt: 2}},                   // 6: a code change inserts a live step
		{Program: par, Schedule: none},                                    // 7: emit beside a sibling effect
		{Program: par, Schedule: Schedule{Crashes: []int{0, 0}, ChangeAt: -1}},
		{Program: unserved, Schedule: none}, // 8: emit after an untyped failure
		{Program: xsx, Schedule: none, Profile: "1.25.0"},
		{Program: f, Schedule: none, Profile: "1.20.0"},
	}
}

// Properties returns the kit, in order.
func Properties() []Property {
	return []Property{
		{
			ID: "kernelprops/emit-serving-model",
			Clauses: []string{"S3.emit.serve-skip", "S3.emit.serve-append", "S3.emit.stamp", "S3.emit.stamp-exceeds-count",
				"S3.emit.stamp-nothing-in-flight", "S3.emit.stamp-nothing-unserved", "S3.emit.never-timing", "S3.emit.identity",
				"S3.emit.segment", "S3.emit.residual", "S3.emit.unmatchable-unstamped", "S3.emit.kernel-facts-unstamped",
				"I-KERNEL-4", "I-KERNEL-5", "I-KERNEL-11", "I-KERNEL-18", "I-KERNEL-19"},
			Gen: genScenario(8, true, true), Examples: examples(), Check: checkModel,
		},
		{
			ID:      "kernelprops/emit-once",
			Clauses: []string{"S3.emit.once", "S3.resume.rerun-served", "S3.emit.fold-count"},
			Gen:     genScenario(8, true, false), Examples: withoutChange(examples()), Check: checkEmitOnce,
		},
		{
			ID:      "kernelprops/effects-per-start",
			Clauses: []string{"S2.execute.served-not-rerun", "S41.typed.untyped-at-least-once", "S1.P9.decision-logged", "I-KERNEL-14"},
			Gen:     genScenario(8, true, true), Examples: examples(), Check: checkEffects,
		},
		{
			ID:      "kernelprops/legacy-log",
			Clauses: []string{"S3.emit.legacy-log"},
			Gen:     genScenario(8, true, false), Examples: withoutChange(examples()), Check: checkLegacy,
		},
		{
			ID:      "kernelprops/replay-appends-nothing",
			Clauses: []string{"S3.resume.rerun-served", "S2.execute.served-not-rerun", "S1.P2.replay-identical", "I-KERNEL-1"},
			Gen:     genScenario(8, true, true), Examples: examples(), Check: checkReplay,
		},
		{
			ID:      "kernelprops/snapshot-equivalence",
			Clauses: []string{"S3.snapshot.equivalence", "S3.snapshot.out-of-band", "S4.snapshot.every-k", "S1.G1.preserve-p2-p9", "I-KERNEL-24"},
			Gen:     genProfileScenario(8), Examples: examples(), Check: checkSnapshots,
		},
		{
			ID:      "kernelprops/g2-unwired",
			Clauses: []string{"S1.G2.unwired-byte-identical", "S1.G2.opt-in", "S5.schema.absent-unchanged"},
			Gen:     genScenario(8, false, true), Examples: withoutParallel(examples()), Check: checkG2,
		},
	}
}

func withoutChange(in []Scenario) []Scenario {
	var out []Scenario
	for _, s := range in {
		if s.Schedule.ChangeAt < 0 {
			out = append(out, s)
		}
	}
	return out
}

func withoutParallel(in []Scenario) []Scenario {
	var out []Scenario
	for _, s := range in {
		if !s.Program.HasParallel() {
			out = append(out, s)
		}
	}
	return out
}

// caseTimeout bounds one scenario: no hang, ever.
const caseTimeout = 30 * time.Second

// Run runs every property against tg as subtests named by check id: the worked examples first,
// then rapid's random cases (-rapid.checks, default 100). A failure prints rapid's seed, the
// shrunk program and schedule, the runs and the log.
func Run(t *testing.T, tg Target) {
	t.Helper()
	t.Run("runtime-state-machine", rapid.MakeCheck(func(rt *rapid.T) { runMachine(rt, tg) }))
	for _, p := range Properties() {
		t.Run(strings.TrimPrefix(p.ID, "kernelprops/"), func(t *testing.T) {
			t.Helper()
			if err := CheckProperty(p, tg, nil); err != nil {
				t.Fatal(err)
			}
			rapid.Check(t, func(rt *rapid.T) {
				s := p.Gen.Draw(rt, "scenario")
				ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
				defer cancel()
				if err := p.Check(ctx, tg, s); err != nil {
					rt.Fatalf("%s %v: %v\n%s", p.ID, p.Clauses, err, s.GoString())
				}
			})
		})
	}
}

// CheckProperty runs a property's fixed examples (and, when gen is not nil, the given scenarios)
// and returns the first violation, for callers outside go test.
func CheckProperty(p Property, tg Target, extra []Scenario) error {
	var errs []error
	for i, s := range append(append([]Scenario(nil), p.Examples...), extra...) {
		ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
		err := p.Check(ctx, tg, s)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %v: example %d: %w\n%s", p.ID, p.Clauses, i, err, s.GoString()))
		}
	}
	return errors.Join(errs...)
}

func driveOrErr(ctx context.Context, tg Target, s Scenario) (*Outcome, error) {
	o, err := drive(ctx, tg, s.Program, s.Schedule)
	if err != nil {
		return o, fmt.Errorf("driving: %w\n%s", err, describeStore(ctx, o))
	}
	return o, nil
}

func describeStore(ctx context.Context, o *Outcome) string {
	if o == nil {
		return ""
	}
	if o.Log == nil && o.store != nil {
		o.Log, _ = o.store.Read(ctx, o.ExecID)
	}
	return o.describe()
}

func checkModel(ctx context.Context, tg Target, s Scenario) error {
	o, err := driveOrErr(ctx, tg, s)
	if err != nil {
		return err
	}
	for _, r := range o.Runs {
		if _, err := checkRunModel(r, o.Log[:r.From], o.Log); err != nil {
			return fmt.Errorf("%w\n%s", err, o.describe())
		}
	}
	return nil
}

func checkEmitOnce(ctx context.Context, tg Target, s Scenario) error {
	o, err := driveOrErr(ctx, tg, s)
	if err != nil {
		return err
	}
	if err := checkOnce(s.Program, o.Log, func(int) int { return 1 }); err != nil {
		return fmt.Errorf("%w\n%s", err, o.describe())
	}
	return nil
}

func checkEffects(ctx context.Context, tg Target, s Scenario) error {
	o, err := driveOrErr(ctx, tg, s)
	if err != nil {
		return err
	}
	if err := checkEffectsPerStart(o.Log, o.Effects); err != nil {
		return fmt.Errorf("%w\n%s", err, o.describe())
	}
	return nil
}

// checkLegacy drives the program to its first park, strips every stamp (a pre-1.19.0 log), and
// drives the copy to completion: the emits of the segments before the park are appended exactly
// once more (the exact ones), the later ones once.
func checkLegacy(ctx context.Context, tg Target, s Scenario) error {
	gates := s.Program.Gates()
	if len(gates) == 0 {
		return nil
	}
	store := &crashStore{EventStore: memory.NewEventStore()}
	rec := newRecorder(s.Program)
	rt, err := newRuntime(tg, store, rec, s.Program, Schedule{ChangeAt: -1}, 0)
	if err != nil {
		return err
	}
	if _, err := rt.Start(ctx, "prog", "x", nil); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	log, err := store.Read(ctx, "x")
	if err != nil {
		return err
	}
	legacy := make([]spi.Envelope, len(log))
	for i, e := range log {
		e.ExecutionID, e.Metadata = "legacy", nil
		legacy[i] = e
	}
	if err := store.EventStore.Append(ctx, "legacy", legacy, spi.AppendOptions{}); err != nil {
		return err
	}
	o := &Outcome{ExecID: "legacy", rt: rt, store: store, rec: rec, tg: tg, prog: s.Program, sched: Schedule{ChangeAt: -1}}
	if err := o.continueDriving(ctx, s.Program, Schedule{Crashes: s.Schedule.Crashes, ChangeAt: -1}, 0); err != nil {
		return fmt.Errorf("driving the legacy copy: %w\n%s", err, describeStore(ctx, o))
	}
	preSegments := 1 // segment 0 ran before the park
	if err := checkOnce(s.Program, o.Log, func(segment int) int {
		if segment < preSegments {
			return 2
		}
		return 1
	}); err != nil {
		return fmt.Errorf("legacy log [S3.emit.legacy-log]: %w\n%s", err, o.describe())
	}
	return nil
}

// checkReplay: re-running the finished execution over its log appends nothing and invokes no
// effect or decider.
func checkReplay(ctx context.Context, tg Target, s Scenario) error {
	o, err := driveOrErr(ctx, tg, s)
	if err != nil {
		return err
	}
	before := len(o.rec.trace())
	res, err := o.rt.Drive(ctx, o.ExecID)
	if err != nil {
		return fmt.Errorf("replay of the finished execution: %w\n%s", err, o.describe())
	}
	after, _ := o.store.Read(ctx, o.ExecID)
	recorded := map[string]bool{}
	for _, e := range o.Log {
		if e.EventType == manifest.DecisionRecorded {
			var p struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			recorded[p.ID] = true
		}
	}
	var live []Event
	for _, ev := range o.rec.trace()[before:] {
		// a decider that threw left no record: the replay asks it again (I-KERNEL-1)
		if ev.Kind == "effect" || ev.Kind == "decider" && recorded[ev.ID] {
			live = append(live, ev)
		}
	}
	if len(after) != len(o.Log) || len(res.Appended) != 0 || len(live) != 0 {
		return fmt.Errorf("replay appended %d envelopes and ran %v live, want nothing\n%s", len(after)-len(o.Log), live, o.describe())
	}
	return nil
}

// checkG2: the same scenario on a runtime with every option present but unwired writes a
// byte-identical log (the program has no parallel, so the log is deterministic).
func checkG2(ctx context.Context, tg Target, s Scenario) error {
	s.Program = s.Program.WithoutParallel()
	if len(s.Program) == 0 {
		return nil
	}
	plain, err := driveOrErr(ctx, tg, s)
	if err != nil {
		return err
	}
	unwired := Target{Name: tg.Name + "+unwired", Mod: func(c *kernel.Config) {
		if tg.Mod != nil {
			tg.Mod(c)
		}
		c.Snapshots = memory.NewSnapshotStore()
		c.Budget = kernel.Budget{}
		// the fakes the steps name, and one effect no step names
		c.Effects = maps.Clone(c.Effects)
		c.Effects["unwired"] = kernel.EffectDef{Fn: func(*kernel.EffectContext, json.RawMessage) (any, error) { return nil, nil }}
		c.Ingress = kernel.IngressOptions{}
		c.Features = kernel.Features{}
		c.Trace = func(string, kernel.EmitDecision) {}
	}}
	other, err := driveOrErr(ctx, unwired, s)
	if err != nil {
		return err
	}
	a, _ := json.Marshal(plain.Log)
	b, _ := json.Marshal(other.Log)
	if !bytes.Equal(a, b) {
		return fmt.Errorf("logs differ with options present but unwired:\nplain:\n%s\nunwired:\n%s", NDJSON(plain.Log), NDJSON(other.Log))
	}
	return nil
}

// checkSnapshots drives the scenario saving a snapshot after every run: the state read through
// the latest snapshot equals the fold of the whole log, the snapshots wrote nothing to the log,
// and a read-only replay starting from the snapshot appends nothing.
func checkSnapshots(ctx context.Context, tg Target, s Scenario) error {
	profile := fold.Current()
	if s.Profile != "" {
		profile = fold.MustProfile(s.Profile)
	}
	o, err := driveWith(ctx, s.target(tg), s.Program, s.Schedule, true)
	if err != nil {
		return fmt.Errorf("driving: %w\n%s", err, describeStore(ctx, o))
	}
	// Keep only the snapshots of the first half of the runs, so the state is a snapshot plus a tail.
	if len(o.Runs) >= 2 {
		cut := int64(o.Runs[len(o.Runs)/2].To)
		if _, err := o.snapStore.PruneSnapshots(ctx, o.ExecID, spi.SeqRange{From: cut, Through: int64(len(o.Log))}); err != nil {
			return err
		}
	}
	whole, err := fold.Fold(profile, nil, o.Log)
	if err != nil {
		return err
	}
	viaSnap, err := o.rt.State(ctx, o.ExecID)
	if err != nil {
		return err
	}
	a, _ := fold.CanonicalState(whole)
	b, _ := fold.CanonicalState(viaSnap)
	if !bytes.Equal(a, b) {
		return fmt.Errorf("state via snapshot differs from the whole-log fold at profile %s:\n%s\n%s\n%s", profile, a, b, o.describe())
	}
	for _, e := range o.Log {
		if strings.Contains(strings.ToLower(e.EventType), "snapshot") {
			return fmt.Errorf("a snapshot wrote %s into the log", e.EventType)
		}
	}
	res, err := o.rt.Drive(ctx, o.ExecID)
	if err != nil || len(res.Appended) != 0 {
		return fmt.Errorf("replay from the snapshot: appended %d, err %v\n%s", len(res.Appended), err, o.describe())
	}
	return nil
}
