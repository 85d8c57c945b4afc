package kernelkit

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// runKit runs the kit's checks whose id run matches ("" = all) against the kernel h serves.
func runKit(t *testing.T, h http.Handler, run string, timeout time.Duration) map[string]kits.Result {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cl := carrier.NewClient(srv.URL, timeout)
	t.Cleanup(cl.Close)
	factory := func(context.Context) (*carrier.Client, func(), error) { return cl, nil, nil }
	res, err := kits.Run(testCtx(t), Kit(), factory, kits.Options{Run: run, SpiVersion: "1.0.0", Seed: 7, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]kits.Result{}
	for _, r := range res {
		out[r.CheckID] = r
	}
	return out
}

// The reference kernel behind the carrier passes every check of the kernel kit, with its Wave 2
// features off and on; with them off the Wave 2 checks skip, naming why.
func TestReferenceKernelPassesKit(t *testing.T) {
	for name, f := range map[string]kernel.Features{"wave1": {}, "wave2": carrier.Wave2()} {
		t.Run(name, func(t *testing.T) {
			c, _, err := carrier.NewProfile(memory.NewEventStore(), false, carrier.Options{Features: f})
			if err != nil {
				t.Fatal(err)
			}
			res := runKit(t, c, "", 30*time.Second)
			if len(res) != len(Kit().Checks) {
				t.Fatalf("ran %d checks, want %d", len(res), len(Kit().Checks))
			}
			skipped := 0
			for id, r := range res {
				switch {
				case r.Verdict == kits.Skip && name == "wave1" && strings.Contains(r.Message, "does not"):
					skipped++
				case r.Verdict == kits.Skip && name == "wave2" && id == "kernel/handshake/unlisted-syscall":
				case r.Verdict != kits.Pass:
					t.Errorf("wire/kit-reference [I-WIRE-8]: %s: %s %s", id, r.Verdict, r.Message)
				}
			}
			if name == "wave1" && skipped == 0 {
				t.Errorf("wire/kit-reference [I-WIRE-21]: no check skipped on a kernel without Wave 2")
			}
		})
	}
}

// With Wave 2 on, the Wave 2 goldens are driven; off, they skip (I-WIRE-21).
func TestWave2GoldensAdvertised(t *testing.T) {
	for _, tc := range []struct {
		f    kernel.Features
		want kits.Verdict
	}{{kernel.Features{}, kits.Skip}, {carrier.Wave2(), kits.Pass}} {
		c, _, err := carrier.NewProfile(memory.NewEventStore(), true, carrier.Options{Features: tc.f})
		if err != nil {
			t.Fatal(err)
		}
		res := runKit(t, c, "^kernel/golden/(receive-deliver|select-deliver|continue-as-new)$", 30*time.Second)
		if len(res) != 3 {
			t.Fatalf("ran %d Wave 2 goldens, want 3", len(res))
		}
		for id, r := range res {
			if r.Verdict != tc.want {
				t.Errorf("wire/wave2-goldens [I-WIRE-21]: %s with features %+v = %s (%s), want %s", id, tc.f, r.Verdict, r.Message, tc.want)
			}
		}
	}
}

// Every broken kernel is rejected by each check meant for it (I-WIRE-8), as its registered
// clauses bind (a tier per assertion): each check meant for it fails; each registered clause is
// cited by a failing assertion of one of them, a required clause (spec, ADR, protocol,
// consequence) by one that binds required; and a kernel registered with choices alone fails
// none of them as required. certify's TestBrokenKernelsCertifiedIffOnlyChoices holds the
// certificates to the same rule.
func TestBrokenKernelsRejected(t *testing.T) {
	for _, b := range BrokenKernels() {
		t.Run(b.Name, func(t *testing.T) {
			h, err := NewBroken(b.Name, memory.NewEventStore(), carrier.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, id := range b.CaughtBy {
				ids = append(ids, regexp.QuoteMeta(id))
			}
			// a short limit: the streaming check waits half of it for an ack that never comes
			res := runKit(t, h, "^("+strings.Join(ids, "|")+")$", 4*time.Second)
			var failed []kits.FailedAssertion
			for _, id := range b.CaughtBy {
				r, ok := res[id]
				if !ok {
					t.Fatalf("check %s did not run", id)
				}
				if r.Verdict != kits.Fail {
					t.Errorf("kernel/wire/%s: %s = %s (%s), want fail (%s)", b.Name, id, r.Verdict, r.Message, b.Defect)
					continue
				}
				if r.Requirement == spec.Required && spec.RequirementOf(b.Clauses) == spec.Recommended {
					t.Errorf("kernel/wire/%s: %s fails required (%v), but the kernel is registered as breaking only the choices %v", b.Name, id, labels(r.Failed), b.Clauses)
				}
				failed = append(failed, r.Failed...)
				t.Logf("%s rejects it (%s): %s", id, r.Requirement, firstLine(r.Message))
				proof.Rejected(t, "kernel/wire/"+b.Name, id, r.Message)
				// a reference-kernel hook registered as proven here is proven by the broken kernel
				// built from it alone
				for _, m := range kernel.Mutants() {
					if hooks, ok := kernel.MutantHooks(m.ID); ok && m.Where == "kits/kernelkit:TestBrokenKernelsRejected" && reflect.DeepEqual(hooks, b.kernel) && reflect.DeepEqual(b.carrier, carrier.Hooks{}) {
						proof.Rejected(t, m.ID, id, r.Message)
					}
				}
			}
			for _, c := range b.Clauses {
				required := spec.RequirementOf([]string{c}) == spec.Required
				if !slices.ContainsFunc(failed, func(a kits.FailedAssertion) bool {
					return slices.Contains(a.Clauses, c) && (!required || a.Requirement == spec.Required)
				}) {
					t.Errorf("kernel/wire/%s: registered as breaking %s, which no failing assertion of %v cites (required: %v); failing: %v", b.Name, c, b.CaughtBy, required, labels(failed))
				}
			}
		})
	}
}

// labels names failing assertions for a test's message.
func labels(failed []kits.FailedAssertion) []string {
	var out []string
	for _, a := range failed {
		out = append(out, a.Label())
	}
	return out
}

// Every registered broken kernel names checks of the kit, and every class the kit covers is served
// by serve-kernel --broken (NewBroken builds each one).
func TestBrokenKernelsRegistered(t *testing.T) {
	ids := map[string]bool{}
	for _, ch := range Kit().Checks {
		ids[ch.ID] = true
	}
	for _, b := range BrokenKernels() {
		for _, id := range b.CaughtBy {
			if !ids[id] {
				t.Errorf("broken kernel %s: caught by %s, which is not a check of the kit", b.Name, id)
			}
		}
	}
	for _, m := range DriverMethods() {
		if _, ok := LookupBroken("unfenced-" + m); !ok {
			t.Errorf("driver method %s has no broken kernel that leaves it unfenced", m)
		}
	}
	if _, err := NewBroken("no-such-kernel", memory.NewEventStore(), carrier.Options{}); err == nil {
		t.Error("NewBroken(no-such-kernel) = nil error, want one naming the broken kernels")
	}
}

// The kit's goldens are the corpus's drivable ones, each its own check whose comparison up to our
// choices is required; a golden whose log a choice shapes compares it exactly too, in a
// recommended assertion citing only those choices (kitCheck.ours).
func TestGoldenChecks(t *testing.T) {
	gs, not, err := clients.Goldens(true)
	if err != nil {
		t.Fatal(err)
	}
	n, exact := 0, 0
	for _, ch := range kitChecks() {
		if !strings.HasPrefix(ch.ID, "kernel/golden/") {
			continue
		}
		n++
		cited := slices.DeleteFunc(slices.Clone(ch.Clauses), func(id string) bool { return slices.Contains(ch.ours, id) })
		if spec.CheckRequirement(ch.Level, cited) != spec.Required {
			t.Errorf("%s: its required assertion cites %v: want a required clause among them", ch.ID, cited)
		}
		if len(ch.ours) > 0 {
			exact++
			if spec.RequirementOf(ch.ours) != spec.Recommended {
				t.Errorf("%s: its exact comparison cites %v: want choices only", ch.ID, ch.ours)
			}
		}
	}
	if n != len(gs) || len(gs) == 0 {
		t.Errorf("kernel/golden/*: %d checks, %d goldens drivable (%d not): want one check per drivable golden", n, len(gs), len(not))
	}
	if exact == 0 {
		t.Error("no kernel/golden/* check compares exactly: want one per golden whose log a choice shapes")
	}
}

// otherChoice is a run of the reference rewritten to another legal option of a freedom (legal),
// or to an answer near it that no option allows (illegal).
type otherChoice struct {
	clause, golden string
	legal, illegal func(*carrier.Run)
}

// otherChoices prove the freedoms no kernel of ours makes the other choice of, and parts of
// others, on the reference's own runs of goldens.
func otherChoices() []otherChoice {
	attempts := func(to func(a int) int) func(*carrier.Run) {
		return func(r *carrier.Run) {
			for i, e := range r.Log {
				if e.EventType == manifest.StepStarted {
					var p struct {
						Attempt int `json:"attempt"`
					}
					_ = json.Unmarshal(e.Payload, &p)
					r.Log[i].Payload = setMember(e.Payload, "attempt", to(p.Attempt))
				}
			}
			frames := memberOf(json.RawMessage(r.State), "frames")
			var p struct {
				Attempt int `json:"attempt"`
			}
			_ = json.Unmarshal(memberOf(frames, "r"), &p)
			r.State = string(setMember(json.RawMessage(r.State), "frames", setMember(frames, "r", setMember(memberOf(frames, "r"), "attempt", to(p.Attempt)))))
		}
	}
	metadata := func(meta string) func(*carrier.Run) {
		return func(r *carrier.Run) {
			for i, e := range r.Log {
				if e.EventType == manifest.ExecutionMigrated {
					r.Log[i].Metadata = json.RawMessage(meta)
				}
			}
		}
	}
	stamps := func(wrong string) func(*carrier.Run) {
		return func(r *carrier.Run) {
			counts := map[string]int{}
			for i, e := range r.Log {
				if e.EventType == "x.b" {
					d, _ := fold.EmitDigest(0, e.EventType, e.Payload)
					r.Log[i].Metadata = mustJSON(map[string]string{"flowEmit": d + wrong})
					counts[d+wrong]++
				}
			}
			emits := map[string]int{}
			_ = json.Unmarshal(variableOf(r.State, fold.VarFlowEmits), &emits)
			for d, n := range counts {
				emits[d] += n
			}
			r.State = string(setVariable(r.State, fold.VarFlowEmits, mustJSON(emits)))
		}
	}
	return []otherChoice{
		{"I-KERNEL-3", "untyped-retry", attempts(func(a int) int { return a - 1 }), attempts(func(int) int { return 1 })},
		{"I-KERNEL-15", "resumeas-transform",
			func(r *carrier.Run) {
				for i := range r.Log {
					r.Log[i].WorkflowID = r.Log[0].WorkflowID
				}
			},
			func(r *carrier.Run) { r.Log[len(r.Log)-1].WorkflowID = "elsewhere" }},
		{"I-KERNEL-50", "resumeas-transform", metadata(`{}`), metadata(`{"kernel":true,"by":"me"}`)},
		{"I-KERNEL-5", "emit-in-parallel", stamps(""), stamps("0")},
	}
}

// Every freedom a required check compares up to names choices, and is proven: by a broken kernel
// that makes another legal choice and breaks nothing else (certify's
// TestBrokenKernelsCertifiedIffOnlyChoices certifies it), or by a run of the reference rewritten to
// another legal choice that the alignment takes back to the reference's form while a rewrite no
// option allows stays a difference (otherChoices).
func TestFreedomsProven(t *testing.T) {
	proofs := otherChoices()
	for _, f := range freedoms() {
		for _, id := range f.clauses {
			if c, ok := spec.Lookup(id); !ok || c.Tier != spec.TierChoice {
				t.Errorf("freedom %s: want a registered choice interpretation", id)
			}
		}
		byKernel := slices.ContainsFunc(BrokenKernels(), func(b Broken) bool {
			return slices.Contains(b.Clauses, f.clauses[0]) && spec.RequirementOf(b.Clauses) == spec.Recommended
		})
		byRewrite := slices.ContainsFunc(proofs, func(p otherChoice) bool { return p.clause == f.clauses[0] })
		if !byKernel && !byRewrite {
			t.Errorf("freedom %s: no broken kernel makes another legal choice (BrokenKernels, section 10) and no rewritten run proves it (otherChoices)", f.clauses[0])
		}
	}
	gs, _, err := clients.Goldens(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range proofs {
		t.Run(p.clause+"/"+p.golden, func(t *testing.T) {
			i := slices.IndexFunc(gs, func(k clients.Case) bool { return k.Name == p.golden })
			if i < 0 {
				t.Fatalf("no drivable golden %s", p.golden)
			}
			k := gs[i]
			if !slices.Contains(touchedFreedoms(k), p.clause) {
				t.Fatalf("golden %s does not touch %s", p.golden, p.clause)
			}
			want, err := reference(testCtx(t), "proof-1", k, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name    string
				rewrite func(*carrier.Run)
				aligned bool
			}{{"legal", p.legal, true}, {"illegal", p.illegal, false}} {
				got := cloneRun(want)
				c.rewrite(&got)
				if divergence(t, want, got) == nil {
					t.Fatalf("%s rewrite of %s changed nothing: the proof would be vacuous", c.name, p.golden)
				}
				w := cloneRun(want)
				alignChoices(k, &w, &got)
				if d := divergence(t, w, got); (d == nil) != c.aligned {
					t.Errorf("%s %s rewrite of %s, aligned: divergence %v, want aligned %v", p.clause, c.name, p.golden, d, c.aligned)
				}
			}
		})
	}
}

// divergence is the first difference between two runs as a required check compares them.
func divergence(t *testing.T, want, got carrier.Run) *goldens.Divergence {
	t.Helper()
	ws, err := normState(want.State)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := normState(got.State)
	if err != nil {
		t.Fatal(err)
	}
	return goldens.DiffRuns(normLog(want.Log), normLog(got.Log), ws, gs, goldens.DiffOptions{})
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// A required check that compares up to our choices says so in its failure, so a kernel author
// reading a divergence knows which of its choices are shown in the reference's form.
func TestAlignedFailureSaysSo(t *testing.T) {
	h, err := NewBroken("deliver-drops-message", memory.NewEventStore(), carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := runKit(t, h, "^kernel/wave2/receive-select$", 4*time.Second)["kernel/wave2/receive-select"]
	if r.Verdict != kits.Fail || !strings.Contains(r.Message, "compared up to the choices I-KERNEL-8") {
		t.Errorf("kernel/wave2/receive-select on deliver-drops-message = %s (%s), want a failure that names the choices it was compared up to", r.Verdict, r.Message)
	}
}
