package goldens

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

func loadCorpus(t *testing.T) []*Golden {
	t.Helper()
	c, err := LoadCorpus("corpus")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Reference: spec §10 (golden-log replay proves replay unchanged), §3 (determinism enforced).
func TestCorpusCheck(t *testing.T) {
	corpus := loadCorpus(t)
	if len(corpus) < 40 {
		t.Errorf("goldens/CorpusCheck: corpus holds %d goldens, want at least 40", len(corpus))
	}
	for _, r := range Check(context.Background(), corpus, CheckOptions{NoG2: true}) {
		if r.Failed() {
			t.Errorf("%s", r)
		}
	}
}

// Reference: spec §1 G2 — an unwired feature leaves the log byte-identical; the
// BudgetPresentWrites mutant, which writes when a budget is merely present, must fail it.
func TestG2Unwired(t *testing.T) {
	corpus := loadCorpus(t)
	ran := map[string]int{}
	for _, g := range corpus {
		for _, v := range G2Variants() {
			if v.Applies(g) {
				ran[v.Name]++
			}
		}
	}
	for _, v := range G2Variants() {
		if ran[v.Name] == 0 {
			t.Errorf("goldens/G2Unwired [S1.G2.unwired-byte-identical]: variant %s applies to no golden", v.Name)
		}
	}
	for _, r := range Check(context.Background(), corpus, CheckOptions{}) {
		if r.Failed() {
			t.Errorf("%s", r)
		}
	}
	bad := Check(context.Background(), corpus, CheckOptions{Config: func(c *kernel.Config) { c.Hooks.BudgetPresentWrites = true }})
	g2 := 0
	for _, r := range bad {
		for _, p := range r.Problems {
			if p.Stage == "g2/budget-unlimited" && p.Divergence != nil && p.Divergence.EventType != "" {
				g2++
			}
		}
	}
	if g2 == 0 {
		t.Errorf("goldens/G2Unwired [S1.G2.unwired-byte-identical]: Check(BudgetPresentWrites) failed no golden at stage g2/budget-unlimited")
	}
}

// outsideFlowScripts lists the kernel Hooks mutants no flow script can reach, and why; every other
// Hooks mutant must fail goldens check.
var outsideFlowScripts = map[string]string{
	"kernel-hook/runtime/parallel-last-failure":     "which branch a failed join names shows only when two branches of one parallel fail, and no golden has two; proven through the broken kernel join-names-last-failure (kernel/parallel/error-paths)",
	"kernel-hook/runtime/negotiate-recomputed":      "negotiateBudget is a Go method of the flow context, not one of the 13 syscalls a flow script makes",
	"kernel-hook/runtime/stamps-unmatchable":        "an emit payload with no JSON form cannot be written in a JSON script",
	"kernel-hook/runtime/run-writes-kind":           "the hook lives in Context.Run with an inline effect; a script's run is a toolId call, as kernel.Context.Call and a wire client make it",
	"kernel-hook/runtime/wave2-unflagged":           "a script lists the Wave 2 features it uses and the driver runs it with them on; what a kernel offers with a flag off is the manifest and syscall tests' to check",
	"kernel-hook/runtime/advertises-all":            "the advertised syscall list is not part of any log",
	"kernel-hook/runtime/no-fence":                  "fencing shows only when two workers race on one execution; a golden replays one driver's log",
	"kernel-hook/runtime/legacy-entries-skipped":    "a pre-ingress log (an entry that answered no gate) cannot be recorded by the current runtime, so no golden holds one",
	"kernel-hook/runtime/authorizer-skips-resumeas": "an execution authorizer is a Go capability of the runtime's config, not something a flow script sets",
	"kernel-hook/runtime/resources-run-only":        "EffectContext.resources is read inside a Go effect; a script's effects are toolId calls whose results are recorded, so the read never reaches a log",
	"kernel-hook/runtime/compacted-folds-tail-only": "a golden's log is never compacted: the hook only changes how a log that no longer starts at 0 is read",
	"kernel-hook/runtime/routes-by-correlation-key": "misrouting needs a second execution parked on the same gate with the same correlationKey; a golden drives one execution",
	"kernel-hook/runtime/verdict-without-fact":      "a verdict without its EFFECT_INDOUBT fact needs a log the runtime never writes; a golden's log is what the runtime wrote",
}

// Every kernel Hooks mutant makes goldens check fail, naming the golden and the first divergence.
func TestHookMutantsFailCheck(t *testing.T) {
	corpus := loadCorpus(t)
	caught := 0
	for _, m := range HookMutants() {
		own := slices.Contains(m.CaughtBy, "goldens/HookMutantsFailCheck")
		if why, ok := outsideFlowScripts[m.ID]; ok {
			if own {
				t.Errorf("goldens/HookMutantsFailCheck: %s is registered as caught by goldens but listed as outside flow scripts (%s)", m.ID, why)
			}
			continue
		}
		res := Check(context.Background(), corpus, CheckOptions{Config: m.Config})
		var failed []Result
		for _, r := range res {
			if r.Failed() {
				failed = append(failed, r)
			}
		}
		if len(failed) == 0 {
			t.Errorf("goldens/HookMutantsFailCheck [%s]: Check(%s) = every golden passes, want a failure", strings.Join(m.Clauses, " "), m.ID)
			continue
		}
		caught++
		msg := failed[0].String()
		if !strings.Contains(msg, "goldens/"+failed[0].Name) || !(strings.Contains(msg, "differs at") || strings.Contains(msg, "(-want +got)") || strings.Contains(msg, "diverged")) {
			t.Errorf("goldens/HookMutantsFailCheck: %s failure %q names no golden or divergence", m.ID, msg)
		}
		if own { // a mutant registered as caught elsewhere still fails goldens, but proves nothing here
			proof.Rejected(t, m.ID, "goldens/HookMutantsFailCheck", proof.Failure("goldens/HookMutantsFailCheck", nil, "Check("+m.ID+")", msg))
		}
	}
	// every switch of kernel.Hooks (its bool fields; a func hook such as UnwiredWork costs time,
	// not log bytes, and is the fitness gate's) is a registered mutant
	if f, n := numBoolHooks(), len(HookMutants()); f != n {
		t.Errorf("goldens/HookMutantsFailCheck: kernel.Hooks has %d switches, kernel.Mutants registers %d", f, n)
	}
	if caught+len(outsideFlowScripts) != len(HookMutants()) {
		t.Errorf("goldens/HookMutantsFailCheck: %d caught + %d outside flow scripts != %d Hooks mutants (a stale outsideFlowScripts entry?)", caught, len(outsideFlowScripts), len(HookMutants()))
	}
}

func numBoolHooks() int {
	ty := reflect.TypeOf(kernel.Hooks{})
	n := 0
	for i := 0; i < ty.NumField(); i++ {
		if ty.Field(i).Type.Kind() == reflect.Bool {
			n++
		}
	}
	return n
}

// A replay over a log that does not match the flow diverges (spec §3, §10); replayAsFixture
// notices an effect it had to run.
func TestReplayAsFixtureRejectsTamperedLogs(t *testing.T) {
	corpus := loadCorpus(t)
	g := find(t, corpus, "served-not-rerun")
	rep, err := ReplayAsFixture(context.Background(), g.Script, g.Driver, g.Log, nil)
	if err != nil || rep.Effects != 0 || len(rep.Replayed) != 1 {
		t.Fatalf("goldens/ReplayAsFixture: ReplayAsFixture(served-not-rerun) = %+v, %v; want one execution replayed, no effect", rep, err)
	}
	// The completed output says something the flow does not return.
	tampered := slices.Clone(g.Log)
	last := tampered[len(tampered)-1]
	last.Payload = json.RawMessage(`{"output":"not what the flow returns"}`)
	tampered[len(tampered)-1] = last
	if _, err := ReplayAsFixture(context.Background(), g.Script, g.Driver, tampered, nil); err == nil {
		t.Errorf("goldens/ReplayAsFixture [S10.replay-unchanged]: ReplayAsFixture(tampered output) = nil, want a divergence")
	}
	// Dropping the second step's completion: a read-only replay would have to run its effect.
	var cut []spi.Envelope
	for _, e := range g.Log {
		if e.EventType == manifest.StepCompleted && strings.Contains(string(e.Payload), `"c2"`) {
			break
		}
		cut = append(cut, e)
	}
	cut = append(cut, spi.Envelope{ID: "x", WorkflowID: g.Script.ID, ExecutionID: "e1", EventType: manifest.ExecutionCompleted,
		Sequence: int64(len(cut)), Payload: json.RawMessage(`{"output":null}`)})
	if _, err := ReplayAsFixture(context.Background(), g.Script, g.Driver, cut, nil); err == nil {
		t.Errorf("goldens/ReplayAsFixture [S2.execute.served-not-rerun]: ReplayAsFixture(log without a step's completion) = nil, want a divergence")
	}
	// A mutant that re-runs completed steps invokes effects during the replay.
	_, err = ReplayAsFixture(context.Background(), g.Script, g.Driver, g.Log, func(c *kernel.Config) { c.Hooks.RerunCompletedSteps = true })
	if err == nil {
		t.Errorf("goldens/ReplayAsFixture [S2.execute.served-not-rerun]: ReplayAsFixture(RerunCompletedSteps) = nil, want a failure")
	}
}

// Logs recorded at event schemas 1.20.0 … 1.25.0 replay on the current kernel.
func TestOldProfilesReplayOnCurrentKernel(t *testing.T) {
	corpus := loadCorpus(t)
	seen := map[string]bool{}
	for _, g := range corpus {
		p := g.Recorded.Profile
		if p == manifest.EventSchemaVersion {
			continue
		}
		seen[p] = true
		rep, err := ReplayAsFixture(context.Background(), g.Script, g.Driver, g.Log, nil)
		if err != nil || len(rep.Replayed) == 0 {
			t.Errorf("goldens/OldProfiles [S4.replay.byte-identical-unaffected]: ReplayAsFixture(%s, recorded at %s) = %v, want a read-only replay on the current kernel", g.Name, p, err)
		}
	}
	for _, p := range []string{"1.20.0", "1.21.0", "1.22.0", "1.23.0", "1.24.0", "1.25.0"} {
		if !seen[p] {
			t.Errorf("goldens/OldProfiles: no golden recorded at profile %s", p)
		}
	}
}

func TestDiffRunsFirstDivergence(t *testing.T) {
	env := func(i int64, p string) spi.Envelope {
		return spi.Envelope{ID: "id" + p, WorkflowID: "f", ExecutionID: "e1", EventType: "STEP_COMPLETED", Sequence: i, Timestamp: i * 7, Payload: json.RawMessage(p)}
	}
	a := []spi.Envelope{env(0, `{"a":1}`), env(1, `{"output":{"x":[1,2]},"stepId":"s"}`)}
	b := []spi.Envelope{env(0, `{"a":1}`), env(1, `{"output":{"x":[1,3]},"stepId":"s"}`)}
	d := DiffRuns(a, b, nil, nil, DiffOptions{})
	if d == nil || d.Index != 1 || d.Pointer != "/payload/output/x/1" || d.EventType != "STEP_COMPLETED" || !strings.Contains(d.Diff, "-") {
		t.Fatalf("goldens/DiffRuns: DiffRuns = %+v, want envelope 1 at /payload/output/x/1", d)
	}
	// The one rule: ids and timestamps differ between runs and are masked unless strict.
	c := slices.Clone(a)
	c[1].ID, c[1].Timestamp = "other", 99
	if d := DiffRuns(a, c, nil, nil, DiffOptions{}); d != nil {
		t.Errorf("goldens/DiffRuns [I-GOLDEN-2]: DiffRuns(ids and timestamps differ) = %v, want nil", d)
	}
	if d := DiffRuns(a, c, nil, nil, DiffOptions{Strict: true}); d == nil || d.Pointer != "/id" {
		t.Errorf("goldens/DiffRuns [I-GOLDEN-2]: DiffRuns(strict) = %+v, want /id", d)
	}
	if d := DiffRuns(a, a[:1], nil, nil, DiffOptions{}); d == nil || d.Index != 1 {
		t.Errorf("goldens/DiffRuns: DiffRuns(shorter) = %+v, want envelope 1", d)
	}
	if d := DiffRuns(nil, nil, []byte(`{"status":"completed","v":{"k":1}}`), []byte(`{"status":"completed","v":{"k":2}}`), DiffOptions{}); d == nil || d.Where != "state" || d.Pointer != "/v/k" {
		t.Errorf("goldens/DiffRuns: DiffRuns(states) = %+v, want state /v/k", d)
	}
}

// Between them the goldens use every syscall and write every event type the kernel writes, and
// each names known clause ids.
func TestCorpusCoversSyscallsAndEvents(t *testing.T) {
	corpus := loadCorpus(t)
	known := map[string]bool{}
	for _, c := range spec.Clauses() {
		known[c.ID] = true
	}
	ops, types := map[string]bool{}, map[string]bool{}
	var walk func([]flowscript.Stmt)
	walk = func(b []flowscript.Stmt) {
		for _, s := range b {
			ops[s.Op] = true
			for _, br := range s.Branches {
				walk(br)
			}
		}
	}
	for _, g := range corpus {
		if len(g.Driver.Clauses) == 0 || g.Driver.About == "" {
			t.Errorf("goldens/Corpus: %s names no clause or has no about", g.Name)
		}
		for _, c := range g.Driver.Clauses {
			if !known[c] {
				t.Errorf("goldens/Corpus: %s names unknown clause %q", g.Name, c)
			}
		}
		walk(g.Script.Body)
		for _, a := range g.Driver.Actions {
			if a.Script != nil {
				walk(a.Script.Body)
			}
		}
		for _, e := range g.Log {
			types[e.EventType] = true
		}
	}
	for _, s := range manifest.Syscalls() {
		if !ops[s.Name] {
			t.Errorf("goldens/Corpus [S2.syscalls.available-iff-listed]: no golden uses syscall %s", s.Name)
		}
	}
	for _, et := range []string{manifest.ExecutionStarted, manifest.StepStarted, manifest.StepCompleted, manifest.StepFailed, manifest.StepCancelled,
		manifest.DecisionRecorded, manifest.ExecutionSuspended, manifest.ExecutionResumed, manifest.ExecutionCompleted, manifest.ExecutionFailed,
		manifest.ExecutionCancelled, manifest.ExecutionRecovered, manifest.ExecutionMigrated, manifest.ExecutionContinued, manifest.EffectInDoubt,
		manifest.TimerFired, manifest.ResourceMetered, manifest.QuotaExceeded, manifest.MessageConsumed} {
		if !types[et] {
			t.Errorf("goldens/Corpus: no golden log holds %s", et)
		}
	}
}

// Bad input names the file and the envelope index and field; loading writes nothing.
func TestLoadRefusesBadInput(t *testing.T) {
	src := filepath.Join("corpus", "suspend-resume")
	copyGolden := func(t *testing.T, edit func(dir string)) error {
		dir := filepath.Join(t.TempDir(), "case")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{FlowFile, DriverFile, LogFile, StateFile, RecordedFile} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		edit(dir)
		_, err := Load(dir)
		return err
	}
	rewrite := func(f string, fn func(string) string) func(string) {
		return func(dir string) {
			p := filepath.Join(dir, f)
			b, _ := os.ReadFile(p)
			_ = os.WriteFile(p, []byte(fn(string(b))), 0o644)
		}
	}
	cases := []struct {
		name string
		edit func(string)
		want string
	}{
		{"non-dense log", rewrite(LogFile, func(s string) string { return strings.Replace(s, `"sequence":2`, `"sequence":5`, 1) }), `envelope 2: field "sequence"`},
		{"wrong field type", rewrite(LogFile, func(s string) string { return strings.Replace(s, `"sequence":1`, `"sequence":"1"`, 1) }), "log.ndjson"},
		{"another execution", rewrite(LogFile, func(s string) string { return strings.ReplaceAll(s, `"executionId":"e1"`, `"executionId":"e9"`) }), `field "executionId"`},
		{"unknown syscall", rewrite(FlowFile, func(s string) string { return strings.Replace(s, `"op": "suspend"`, `"op": "fork"`, 1) }), `flow.json: body[1]: field "op"`},
		{"unbound name", rewrite(FlowFile, func(s string) string { return strings.Replace(s, `"$ref": "ok"`, `"$ref": "nope"`, 1) }), `field "return": reference to unbound name "nope"`},
		{"bad driver", rewrite(DriverFile, func(s string) string { return strings.Replace(s, `"do": "resume"`, `"do": "explode"`, 1) }), `driver.json: actions[1]: field "do"`},
	}
	for _, c := range cases {
		err := copyGolden(t, c.edit)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("goldens/Load %s: Load = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func find(t *testing.T, corpus []*Golden, name string) *Golden {
	t.Helper()
	for _, g := range corpus {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no golden %s", name)
	return nil
}
