package kernelkit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/kits"
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

// Every broken kernel is rejected by each check meant for it (I-WIRE-8).
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
			for _, id := range b.CaughtBy {
				r, ok := res[id]
				if !ok {
					t.Fatalf("check %s did not run", id)
				}
				if r.Verdict != kits.Fail {
					t.Errorf("kernel/wire/%s: %s = %s (%s), want fail (%s)", b.Name, id, r.Verdict, r.Message, b.Defect)
					continue
				}
				t.Logf("%s rejects it: %s", id, firstLine(r.Message))
				proof.Rejected(t, "kernel/wire/"+b.Name, id, r.Message)
			}
		})
	}
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

// The kit's goldens are the corpus's drivable ones, each its own required check; a golden whose log
// a choice shapes has a recommended kernel/golden/<name>/log beside it, citing only its choices.
func TestGoldenChecks(t *testing.T) {
	gs, not, err := clients.Goldens(true)
	if err != nil {
		t.Fatal(err)
	}
	n, logs := 0, 0
	for _, ch := range Kit().Checks {
		name, ok := strings.CutPrefix(ch.ID, "kernel/golden/")
		if !ok {
			continue
		}
		req := spec.CheckRequirement(ch.Level, ch.Clauses)
		if _, ok := strings.CutSuffix(name, "/log"); ok {
			logs++
			if req != spec.Recommended {
				t.Errorf("%s cites %v: a golden's log check cites only choices, want recommended", ch.ID, ch.Clauses)
			}
			continue
		}
		n++
		if req != spec.Required {
			t.Errorf("%s cites %v: want a required check", ch.ID, ch.Clauses)
		}
	}
	if n != len(gs) || len(gs) == 0 {
		t.Errorf("kernel/golden/*: %d checks, %d goldens drivable (%d not): want one check per drivable golden", n, len(gs), len(not))
	}
	if logs == 0 {
		t.Error("no kernel/golden/*/log check: want one per golden whose log a choice shapes")
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Every freedom a required check compares up to is proven by a broken kernel that makes the other
// choice (certify's TestKernelDifferingOnlyInChoicesCertified certifies it), and names a choice.
func TestFreedomsProven(t *testing.T) {
	for _, f := range freedoms() {
		c, ok := spec.Lookup(f.clause)
		if !ok || c.Tier != spec.TierChoice {
			t.Errorf("freedom %s: want a registered choice interpretation", f.clause)
		}
		if !slices.ContainsFunc(BrokenKernels(), func(b Broken) bool { return slices.Equal(b.Clauses, []string{f.clause}) }) {
			t.Errorf("freedom %s: no broken kernel makes the other choice (BrokenKernels, section 10)", f.clause)
		}
	}
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
