package certify_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/kits/broken/dispatchers"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// A certificate is "certified iff the target breaks only choices" (DESIGN §7.1, a tier per
// assertion): every broken implementation of the registry is held to it through certify itself.
// One registered as breaking only choices — an answer to a question the spec leaves open, one of
// its legal options — runs its seam's whole kit and is certified, with the recommendations it does
// not meet listed (--strict holds it to them: I-CERT-10), so a required assertion that leans on a
// choice by accident fails the test. One registered with a required clause (spec, ADR, protocol,
// consequence) is not certified: a check meant for it fails blocking, on a failing assertion that
// binds required and cites that clause.

// registeredStore is a kits/broken store or dispatcher served over the bridge (a store beside memory
// stores for the other kernel-tier seams), with the clauses it is registered as breaking and the
// checks meant for it.
type registeredStore struct {
	kind    string
	clauses []string
	catches []string
	broken.Store[bridge.Stores]
}

// registeredStores lists every kits/broken store (per rule, per rule class and natural-window) and
// dispatcher.
func registeredStores() []registeredStore {
	reg := map[string]spec.Mutant{}
	for _, m := range broken.Mutants() {
		reg[m.ID] = m
	}
	base := func() bridge.Stores {
		return bridge.Stores{Implementation: bridge.Implementation{Name: "broken", Version: "test"},
			EventStore: memory.NewEventStore(), SnapshotStore: memory.NewSnapshotStore(),
			ArchiveStore: memory.NewArchiveStore(), BranchRegistry: memory.NewBranchRegistry()}
	}
	var out []registeredStore
	add := func(kind, name, defect, catch string, set func(*bridge.Stores)) {
		m := reg[broken.MutantID(kind, name)]
		out = append(out, registeredStore{kind, m.Clauses, m.CaughtBy, broken.Store[bridge.Stores]{Name: name, Defect: defect, Catch: catch,
			New: func() bridge.Stores { st := base(); set(&st); return st }}})
	}
	for _, b := range slices.Concat(broken.EventStores(), broken.ClassEventStores(), broken.NaturalEventStores()) {
		add("eventstore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.EventStore = b.New() })
	}
	for _, b := range slices.Concat(broken.SnapshotStores(), broken.ClassSnapshotStores(), broken.NaturalSnapshotStores()) {
		add("snapshotstore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.SnapshotStore = b.New() })
	}
	for _, b := range slices.Concat(broken.ArchiveStores(), broken.ClassArchiveStores(), broken.NaturalArchiveStores()) {
		add("archivestore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.ArchiveStore = b.New() })
	}
	for _, b := range slices.Concat(broken.BranchRegistries(), broken.ClassBranchRegistries(), broken.NaturalBranchRegistries()) {
		add("branchregistry", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.BranchRegistry = b.New() })
	}
	for _, b := range slices.Concat(broken.ContentStores(), broken.ClassContentStores(), broken.NaturalContentStores()) {
		add("contentstore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.ContentStore = b.New() })
	}
	for _, b := range slices.Concat(broken.DurableStateStores(), broken.ClassDurableStateStores(), broken.NaturalDurableStateStores()) {
		add("durablestatestore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.DurableStateStore = b.New() })
	}
	for _, b := range slices.Concat(broken.ReadModelStores(), broken.ClassReadModelStores(), broken.NaturalReadModelStores()) {
		add("readmodelstore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.ReadModelStore = b.New() })
	}
	for _, b := range dispatchers.Dispatchers() {
		out = append(out, registeredStore{certify.KindDispatcher, b.Clauses, []string{b.Catch}, broken.Store[bridge.Stores]{Name: b.Name, Defect: b.Defect, Catch: b.Catch,
			New: func() bridge.Stores {
				return bridge.Stores{Implementation: bridge.Implementation{Name: "broken", Version: "test"}, Dispatcher: b.New()}
			}}})
	}
	return out
}

// Every kits/broken store and dispatcher certifies iff it breaks only choices. Each of the
// kernel-tier seams' stores registered as breaking only choices answers one question the spec
// leaves open otherwise (a negative readRange from read as 0, an unfenced append refused while a
// fence is held, an equal re-archive refused, ids listed in another order, numbers kept as
// doubles, …) and runs its seam's whole kit; each other one runs the checks meant for it.
func TestBrokenStoresCertifiedIffOnlyChoices(t *testing.T) {
	stores := registeredStores()
	choices, firstChoice := 0, true
	for _, b := range stores {
		onlyChoices := registeredRequirement(b.clauses) == spec.Recommended
		if onlyChoices {
			choices++
		}
		strict := onlyChoices && firstChoice
		firstChoice = firstChoice && !onlyChoices
		t.Run(b.kind+"/"+b.Name, func(t *testing.T) {
			if b.kind == certify.KindDispatcher {
				if testing.Short() {
					t.Skip("a dispatcher's kit waits for leases to expire; run without -short")
				}
				t.Parallel() // its checks mostly wait
			}
			if why, ok := notOverTheBridge[b.Name]; ok && !onlyChoices {
				rejectedInProcess(t, b, why)
				return
			}
			url := serve(t, b.New(), nil)
			seed := int64(5)
			run := func(strict bool, only []string) *certify.Report {
				cfg := certify.Config{Kinds: []string{b.kind}, Seed: seed, Strict: strict}
				if only != nil {
					cfg.Run = "^(" + strings.Join(quoteAll(only), "|") + ")$"
				}
				rep, err := certify.Run(context.Background(), certify.URLTarget{URL: url}, cfg)
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			if !onlyChoices {
				rep := run(false, b.catches)
				// A round-trip window is seen behind the bridge on at least 99 % of seeds (I-COV-5,
				// make seed-rate-bridge), so one of three seeds rejects it — but for the fenced
				// append's race, which shows only to a read inside the window (the exception).
				roundTrip := strings.HasSuffix(b.Name, "-roundtrip") && !slices.Contains(b.catches, "eventstore/fence-race")
				for roundTrip && masked(rep, b.catches) && seed < 7 {
					seed++
					rep = run(false, b.catches)
				}
				if roundTrip && masked(rep, b.catches) {
					t.Fatalf("%s (%s): %v pass over the bridge on seeds 5, 6 and 7, want a rejection (I-COV-5)", b.Name, b.Defect, b.catches)
				}
				if masked(rep, b.catches) {
					// The bridge stands between the store and the caller: a cancellation never
					// reaches the store (I-BRIDGE-5), a race may not show through its round trips,
					// and its server calls a content store's owner-taking methods where the store
					// has them, so over the wire the pair keeps the rule the store breaks in
					// process, where kits/broken rejects it. Served so, it is certified rightly.
					t.Logf("%s: %v pass over the bridge (the defect does not show through it; kits/broken rejects the store in process)", b.Name, b.catches)
					return
				}
				if rep.Verdict != certify.NotCertified {
					t.Fatalf("%s (%s), registered as breaking %v: verdict %s, want not certified\n%s", b.Name, b.Defect, b.clauses, rep.Verdict, strings.Join(failing(rep), "\n"))
				}
				heldToRequired(t, b.Name, b.clauses, rep, b.catches)
				return
			}
			rep := run(false, nil)
			notMet := certify.NotMetIDs(rep)
			if rep.Verdict != certify.Certified {
				t.Fatalf("%s (%s): verdict %s, recommendations not met %v; want certified\n%s",
					b.Name, b.Defect, rep.Verdict, notMet, strings.Join(failing(rep), "\n"))
			}
			if !slices.Contains(notMet, b.Catch) {
				// The bridge's JSON Schema refuses some arguments before the store sees them (a
				// malformed digest, a TTL out of range), so over the wire the store keeps the
				// recommendation whatever it would answer.
				if c, _ := find(rep, b.Catch); c.Verdict != kits.Pass {
					t.Fatalf("%s: %s = %s, want it among the recommendations not met %v", b.Name, b.Catch, c.Verdict, notMet)
				}
				t.Logf("%s: %s passes over the bridge (the wire refuses the argument first)", b.Name, b.Catch)
				return
			}
			if h := certify.Headline(rep); !strings.HasPrefix(h, "CERTIFIED") || !strings.Contains(h, "not met") {
				t.Errorf("headline %q, want a certificate that says how many recommendations are not met", h)
			}
			if strict { // once is enough: --strict reads the same recommendations as blockers
				if rep := run(true, nil); rep.Verdict != certify.NotCertified || !slices.Equal(certify.NotMetIDs(rep), notMet) {
					t.Errorf("--strict: verdict %s, recommendations not met %v; want not certified for %v", rep.Verdict, certify.NotMetIDs(rep), notMet)
				}
			}
		})
	}
	if choices < 12 {
		t.Errorf("%d kits/broken stores break only choices, want at least 12", choices)
	}
}

// Every broken kernel certifies iff it breaks only choices (kits/kernelkit.BrokenKernels: a park
// inside a parallel branch answered without parking is rejected as the spec clause it breaks; a
// cancel of a terminal execution recorded, another sleep gate, wait id, quota order, continued
// id, human gate, degraded-failure record, resume order, or §3 read literally inside a parallel is
// certified). A kernel registered as breaking only choices runs the whole kit; the few choices
// required goldens still hold a kernel to are listed in docs/wire.md, and no such kernel makes them.
func TestBrokenKernelsCertifiedIffOnlyChoices(t *testing.T) {
	choices := 0
	for _, b := range kernelkit.BrokenKernels() {
		onlyChoices := registeredRequirement(b.Clauses) == spec.Recommended
		first := onlyChoices && choices == 0
		if onlyChoices {
			choices++
		}
		t.Run(b.Name, func(t *testing.T) {
			h, err := kernelkit.NewBroken(b.Name, memory.NewEventStore(), carrier.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !onlyChoices {
				rep := certifyKernel(t, h, certify.Config{Run: "^(" + strings.Join(quoteAll(b.CaughtBy), "|") + ")$", Timeout: 4 * time.Second})
				if rep.Verdict != certify.NotCertified {
					t.Fatalf("certify/kernel [I-WIRE-8]: broken kernel %s (%s), registered as breaking %v: verdict %s, want not certified\n%s",
						b.Name, b.Defect, b.Clauses, rep.Verdict, strings.Join(failing(rep), "\n"))
				}
				heldToRequired(t, b.Name, b.Clauses, rep, b.CaughtBy)
				return
			}
			rep := certifyKernel(t, h, certify.Config{})
			notMet := certify.NotMetIDs(rep)
			if rep.Verdict != certify.Certified {
				t.Fatalf("%s (%s): verdict %s, recommendations not met %v; want certified\n%s", b.Name, b.Defect, rep.Verdict, notMet, strings.Join(failing(rep), "\n"))
			}
			for _, id := range b.CaughtBy {
				if !slices.Contains(notMet, id) {
					t.Errorf("%s: recommendations not met %v, want %s among them", b.Name, notMet, id)
				}
			}
			if line := certify.Headline(rep); !strings.HasPrefix(line, "CERTIFIED") || !strings.Contains(line, "not met") {
				t.Errorf("headline %q, want a kernel certificate that says how many recommendations are not met", line)
			}
			if first {
				if rep := certifyKernel(t, h, certify.Config{Strict: true}); rep.Verdict != certify.NotCertified {
					t.Errorf("--strict: verdict %s, want not certified for %v", rep.Verdict, notMet)
				}
			}
		})
	}
	if choices < 10 {
		t.Errorf("%d broken kernels break only choices, want at least 10 (BrokenKernels: cancels-*, section 10)", choices)
	}
}

// notOverTheBridge are the broken stores whose check does not reach a verdict over the bridge
// within its time limit; kits/broken rejects each in process.
var notOverTheBridge = map[string]string{
	"upsert-delete-then-insert": "readmodelstore/readers-whole-upsert races readers against upserts: over the bridge it sees the missing document but its rounds outrun the 20 s limit (unknown, not a fail); kits/broken rejects the store in process",
}

// rejectedInProcess holds a store of notOverTheBridge to its check in process, where the check
// reaches its verdict: that check fails it, on a required assertion.
func rejectedInProcess(t *testing.T, b registeredStore, why string) {
	t.Helper()
	st := b.New()
	if b.kind != "readmodelstore" || st.ReadModelStore == nil {
		t.Fatalf("%s: notOverTheBridge holds a %s store, which rejectedInProcess cannot run yet (%s)", b.Name, b.kind, why)
	}
	rs, err := kits.Run(context.Background(), kits.ReadModelStoreKit(), func(context.Context) (spi.ReadModelStore, func(), error) { return st.ReadModelStore, nil, nil },
		kits.Options{Run: "^" + regexp.QuoteMeta(b.Catch) + "$", Seed: 5})
	if err != nil || len(rs) != 1 || rs[0].Verdict != kits.Fail || rs[0].Requirement != spec.Required {
		t.Fatalf("%s (%s) in process: %s = %v, %v; want a required failure (over the bridge: %s)", b.Name, b.Defect, b.Catch, rs, err, why)
	}
}

// registeredRequirement is how the clauses a broken implementation is registered as breaking bind
// it: required when one of them is a MUST or MUST NOT whose source or tier is required
// (spec.CheckRequirement of the clause alone), recommended when each is a choice, a SHOULD or a MAY.
func registeredRequirement(clauses []string) spec.Requirement {
	for _, id := range clauses {
		c, ok := spec.Lookup(id)
		if !ok || spec.CheckRequirement(c.Level, []string{id}) == spec.Required {
			return spec.Required
		}
	}
	return spec.Recommended
}

// masked reports whether every check of checks passed: over the bridge, the defect they are meant
// for does not show.
func masked(rep *certify.Report, checks []string) bool {
	for _, id := range checks {
		if c, ok := find(rep, id); !ok || c.Verdict != kits.Pass {
			return false
		}
	}
	return true
}

// heldToRequired holds a report of the checks meant for a target registered as breaking clauses
// (one of them required, registeredRequirement) to the rule: each of those checks that failed
// blocks, and each registered required clause is cited by a failing assertion that binds required.
func heldToRequired(t *testing.T, name string, clauses []string, rep *certify.Report, checks []string) {
	t.Helper()
	var failed []kits.FailedAssertion
	for _, id := range checks {
		c, ok := find(rep, id)
		if !ok {
			t.Errorf("%s: %s did not run", name, id)
			continue
		}
		if c.Verdict == kits.Fail && c.Requirement == spec.Required && !c.Blocking {
			t.Errorf("%s: %s fails required but does not block", name, id)
		}
		failed = append(failed, c.Failed...)
	}
	for _, cl := range clauses {
		if registeredRequirement([]string{cl}) != spec.Required {
			continue
		}
		// over the bridge an answer the bridge's protocol rules out is named as the bridge's
		// failure (I-BRIDGE-4) before the kit's clause is
		if !slices.ContainsFunc(failed, func(a kits.FailedAssertion) bool {
			return a.Requirement == spec.Required && (slices.Contains(a.Clauses, cl) || slices.Contains(a.Clauses, "I-BRIDGE-4"))
		}) {
			var got []string
			for _, a := range failed {
				got = append(got, a.Label())
			}
			t.Errorf("%s is registered as breaking %s, but no failing assertion of %v that binds required cites it: %v", name, cl, checks, got)
		}
	}
}

// quoteAll quotes check ids for a --run expression.
func quoteAll(ids []string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, regexp.QuoteMeta(id))
	}
	return out
}
