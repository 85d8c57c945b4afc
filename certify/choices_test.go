package certify_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/kits/broken/dispatchers"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// choiceStore is a kits/broken store or dispatcher registered as breaking only choices, served
// over the bridge (a store beside memory stores for the other kernel-tier seams).
type choiceStore struct {
	kind, catch string
	broken.Store[bridge.Stores]
}

// choiceStores lists the kits/broken stores (per rule and per rule class) and dispatchers whose
// registered clauses are all choices.
func choiceStores() []choiceStore {
	clauses := map[string][]string{}
	for _, m := range broken.Mutants() {
		clauses[m.ID] = m.Clauses
	}
	base := func() bridge.Stores {
		return bridge.Stores{Implementation: bridge.Implementation{Name: "choices", Version: "test"},
			EventStore: memory.NewEventStore(), SnapshotStore: memory.NewSnapshotStore(),
			ArchiveStore: memory.NewArchiveStore(), BranchRegistry: memory.NewBranchRegistry()}
	}
	var out []choiceStore
	add := func(kind, name, defect, catch string, set func(*bridge.Stores)) {
		if spec.RequirementOf(clauses[broken.MutantID(kind, name)]) != spec.Recommended {
			return
		}
		out = append(out, choiceStore{kind, catch, broken.Store[bridge.Stores]{Name: name, Defect: defect, Catch: catch,
			New: func() bridge.Stores { st := base(); set(&st); return st }}})
	}
	for _, b := range append(broken.EventStores(), broken.ClassEventStores()...) {
		add("eventstore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.EventStore = b.New() })
	}
	for _, b := range append(broken.SnapshotStores(), broken.ClassSnapshotStores()...) {
		add("snapshotstore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.SnapshotStore = b.New() })
	}
	for _, b := range append(broken.ArchiveStores(), broken.ClassArchiveStores()...) {
		add("archivestore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.ArchiveStore = b.New() })
	}
	for _, b := range append(broken.BranchRegistries(), broken.ClassBranchRegistries()...) {
		add("branchregistry", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.BranchRegistry = b.New() })
	}
	for _, b := range append(broken.ContentStores(), broken.ClassContentStores()...) {
		add("contentstore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.ContentStore = b.New() })
	}
	for _, b := range append(broken.DurableStateStores(), broken.ClassDurableStateStores()...) {
		add("durablestatestore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.DurableStateStore = b.New() })
	}
	for _, b := range append(broken.ReadModelStores(), broken.ClassReadModelStores()...) {
		add("readmodelstore", b.Name, b.Defect, b.Catch, func(st *bridge.Stores) { st.ReadModelStore = b.New() })
	}
	for _, b := range dispatchers.Dispatchers() {
		if spec.RequirementOf(b.Clauses) == spec.Recommended {
			out = append(out, choiceStore{certify.KindDispatcher, b.Catch, broken.Store[bridge.Stores]{Name: b.Name, Defect: b.Defect, Catch: b.Catch,
				New: func() bridge.Stores {
					return bridge.Stores{Implementation: bridge.Implementation{Name: "choices", Version: "test"}, Dispatcher: b.New()}
				}}})
		}
	}
	return out
}

// A store that differs from the reference only where the spec is silent is certified, with the
// recommendations it does not meet listed on the certificate; --strict holds it to them
// (I-CERT-10). Every kits/broken store of the kernel-tier seams registered as breaking only
// choices is such a store: each answers one question the spec leaves open otherwise (a negative
// readRange from read as 0, an unfenced append refused while a fence is held, an equal re-archive
// refused, ids listed in another order, numbers kept as doubles, …). Its seam's whole kit runs, so
// a required check that leans on one of our choices by accident fails this test.
func TestStoreDifferingOnlyInChoicesCertified(t *testing.T) {
	stores := choiceStores()
	if len(stores) < 12 {
		t.Errorf("%d kits/broken stores break only choices, want at least 12", len(stores))
	}
	for i, b := range stores {
		t.Run(b.kind+"/"+b.Name, func(t *testing.T) {
			if b.kind == certify.KindDispatcher {
				if testing.Short() {
					t.Skip("a dispatcher's kit waits for leases to expire; run without -short")
				}
				t.Parallel() // its checks mostly wait
			}
			url := serve(t, b.New(), nil)
			run := func(strict bool) *certify.Report {
				rep, err := certify.Run(context.Background(), certify.URLTarget{URL: url},
					certify.Config{Kinds: []string{b.kind}, Seed: 5, Strict: strict})
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			rep := run(false)
			notMet := certify.NotMetIDs(rep)
			if rep.Verdict != certify.Certified {
				t.Fatalf("%s (%s): verdict %s, recommendations not met %v; want certified\n%s",
					b.Name, b.Defect, rep.Verdict, notMet, strings.Join(failing(rep), "\n"))
			}
			if !slices.Contains(notMet, b.catch) {
				// The bridge's JSON Schema refuses some arguments before the store sees them (a
				// malformed digest, a TTL out of range), so over the wire the store keeps the
				// recommendation whatever it would answer.
				if c, _ := find(rep, b.catch); c.Verdict != kits.Pass {
					t.Fatalf("%s: %s = %s, want it among the recommendations not met %v", b.Name, b.catch, c.Verdict, notMet)
				}
				t.Logf("%s: %s passes over the bridge (the wire refuses the argument first)", b.Name, b.catch)
				return
			}
			if h := certify.Headline(rep); !strings.HasPrefix(h, "CERTIFIED") || !strings.Contains(h, "not met") {
				t.Errorf("headline %q, want a certificate that says how many recommendations are not met", h)
			}
			if i > 0 {
				return // once is enough: --strict reads the same recommendations as blockers
			}
			if rep := run(true); rep.Verdict != certify.NotCertified || !slices.Equal(certify.NotMetIDs(rep), notMet) {
				t.Errorf("--strict: verdict %s, recommendations not met %v; want not certified for %v", rep.Verdict, certify.NotMetIDs(rep), notMet)
			}
		})
	}
}
