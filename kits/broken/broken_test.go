package broken_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/proof"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

func rejectedBy[T any](t *testing.T, seam string, kit kits.Kit[T], stores []broken.Store[T]) {
	t.Helper()
	ids := map[string]bool{}
	for _, id := range kit.Names() {
		ids[id] = true
	}
	for _, b := range stores {
		t.Run(b.Name, func(t *testing.T) {
			for _, catch := range broken.Catches(seam, b.Name, b.Catch) {
				if !ids[catch] {
					t.Fatalf("broken store %s names check %q, which kit %s does not have", b.Name, catch, kit.Name)
				}
				results, err := kits.Run(context.Background(), kit, b.Factory(),
					kits.Options{Run: "^" + regexp.QuoteMeta(catch) + "$", Timeout: 10 * time.Second, Seed: 7})
				if err != nil {
					t.Fatal(err)
				}
				if len(results) != 1 {
					t.Fatalf("Run(%s) = %d results, want 1", catch, len(results))
				}
				r := results[0]
				if r.Verdict != kits.Fail || r.CheckID != catch {
					t.Errorf("%s (%s): check %s verdict = %s (%s), want fail", b.Name, b.Defect, catch, r.Verdict, r.Message)
					continue
				}
				if !regexp.MustCompile(`^` + regexp.QuoteMeta(catch) + ` \[[^\]]+\]: \w+\(`).MatchString(r.Message) {
					t.Errorf("message %q does not follow `<check id> [<clause ids>]: Op(args) = got, want want`", r.Message)
				}
				proof.Rejected(t, broken.MutantID(seam, b.Name), catch, r.Message)
				t.Logf("%s rejected by %s: %s", b.Name, catch, firstLine(r.Message))
			}
		})
	}
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

func TestBrokenEventStoresRejected(t *testing.T) {
	rejectedBy(t, "eventstore", kits.EventStoreKit(), broken.EventStores())
}

func TestBrokenSnapshotStoresRejected(t *testing.T) {
	rejectedBy(t, "snapshotstore", kits.SnapshotStoreKit(), broken.SnapshotStores())
}

func TestBrokenArchiveStoresRejected(t *testing.T) {
	rejectedBy(t, "archivestore", kits.ArchiveStoreKit(), broken.ArchiveStores())
}

func TestBrokenBranchRegistriesRejected(t *testing.T) {
	rejectedBy(t, "branchregistry", kits.BranchRegistryKit(), broken.BranchRegistries())
}

func TestEnoughBrokenStores(t *testing.T) {
	n := len(broken.EventStores()) + len(broken.SnapshotStores()) + len(broken.ArchiveStores()) + len(broken.BranchRegistries())
	if n < 20 {
		t.Fatalf("%d broken stores, want at least 20", n)
	}
}

// A store claiming 2.2.0 is not held to the 2.3.0 incarnation rule: the check skips, it does not fail.
// Claiming 2.6.0 with the same defect fails (TestBrokenEventStoresRejected).
func TestIncarnationRuleFollowsTheClaim(t *testing.T) {
	f := func(ctx context.Context) (spi.EventStore, func(), error) {
		return broken.IncarnationReuseClaiming("2.2.0"), nil, nil
	}
	results, err := kits.Run(context.Background(), kits.EventStoreKit(), f, kits.Options{Run: `^eventstore/(incarnation-anchor|append-if-unchanged)$`})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]kits.Verdict{}
	for _, r := range results {
		got[r.CheckID] = r.Verdict
	}
	if got["eventstore/incarnation-anchor"] != kits.Skip || got["eventstore/append-if-unchanged"] != kits.Pass {
		t.Fatalf("verdicts = %v, want incarnation-anchor skip and append-if-unchanged pass", got)
	}
	// The run's target version caps the claim as well.
	results, _ = kits.Run(context.Background(), kits.EventStoreKit(), func(ctx context.Context) (spi.EventStore, func(), error) {
		return broken.IncarnationReuseClaiming("2.6.0"), nil, nil
	}, kits.Options{Run: `^eventstore/incarnation-anchor$`, SpiVersion: "2.2.0"})
	if len(results) != 1 || results[0].Verdict != kits.Skip {
		t.Fatalf("Run(SpiVersion 2.2.0) = %v, want skip", results)
	}
}

// A correct store that reorders state keys (as jsonb does) passes the whole SnapshotStore kit.
func TestKeyReorderingStorePasses(t *testing.T) {
	kits.SnapshotStore(t, func(ctx context.Context) (spi.SnapshotStore, func(), error) {
		return broken.KeyReorderingSnapshotStore(), nil, nil
	})
}

// A correct jsonb-like store (keys reordered, U+0000 refused) is certified; only the SHOULD
// check for U+0000 fails.
func TestJsonbLikeStorePasses(t *testing.T) {
	results, err := kits.Run(context.Background(), kits.SnapshotStoreKit(), func(ctx context.Context) (spi.SnapshotStore, func(), error) {
		return broken.JsonbLikeSnapshotStore(), nil, nil
	}, kits.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		want := kits.Pass
		if r.CheckID == "snapshotstore/roundtrip-nul" {
			want = kits.Fail
		}
		if r.Verdict != want {
			t.Errorf("%s = %s (%s), want %s", r.CheckID, r.Verdict, r.Message, want)
		}
	}
	if !kits.Certified(results) {
		t.Error("Certified(jsonb-like store) = false, want true (a SHOULD failure does not block)")
	}
}

func TestChecksValid(t *testing.T) {
	if err := spec.Validate(broken.Checks()); err != nil {
		t.Fatal(err)
	}
}

func TestBrokenContentStoresRejected(t *testing.T) {
	rejectedBy(t, "contentstore", kits.ContentStoreKit(), broken.ContentStores())
}

func TestBrokenDurableStateStoresRejected(t *testing.T) {
	rejectedBy(t, "durablestatestore", kits.DurableStateStoreKit(), broken.DurableStateStores())
}

func TestBrokenReadModelStoresRejected(t *testing.T) {
	rejectedBy(t, "readmodelstore", kits.ReadModelStoreKit(), broken.ReadModelStores())
}

func TestEnoughBrokenPluginStores(t *testing.T) {
	for name, n := range map[string]int{"ContentStore": len(broken.ContentStores()),
		"DurableStateStore": len(broken.DurableStateStores()), "ReadModelStore": len(broken.ReadModelStores())} {
		if n < 8 {
			t.Errorf("%d broken %ss, want at least 8", n, name)
		}
	}
}

// sealingContent is a correct ContentStore that seals: it says so on every call and takes the
// owner argument.
type sealingContent struct{ *memory.ContentStore }

func (sealingContent) SealsContent(context.Context) (bool, error) { return true, nil }

// A correct sealing store passes the whole ContentStore kit, seals-content included (the broken
// sealers are rejected by that check for their defect, not for sealing).
func TestSealingContentStorePasses(t *testing.T) {
	results, err := kits.Run(context.Background(), kits.ContentStoreKit(), func(context.Context) (spi.ContentStore, func(), error) {
		return sealingContent{memory.NewContentStore()}, nil, nil
	}, kits.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Verdict != kits.Pass {
			t.Errorf("%s = %s (%s), want pass", r.CheckID, r.Verdict, r.Message)
		}
	}
}
