package broken_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
)

// naturalSeeds are the fixed seeds on which every natural-window store must be rejected in the
// default suite; make seed-rate measures the rate over 100 seeds (docs/performance.md).
var naturalSeeds = []int64{1, 2, 3}

func naturalRejected[T any](t *testing.T, seam string, kit kits.Kit[T], stores []broken.Store[T]) {
	t.Helper()
	if len(stores) == 0 {
		t.Fatalf("no natural-window %s", seam)
	}
	for _, b := range stores {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			var evidence string
			for _, seed := range naturalSeeds {
				results, err := kits.Run(context.Background(), kit, b.Factory(),
					kits.Options{Run: "^" + regexp.QuoteMeta(b.Catch) + "$", Timeout: 20 * time.Second, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				if len(results) != 1 || results[0].Verdict != kits.Fail {
					v := "no result"
					if len(results) == 1 {
						v = string(results[0].Verdict) + " (" + results[0].Message + ")"
					}
					t.Errorf("%s (%s), seed %d: check %s verdict = %s, want fail", b.Name, b.Defect, seed, b.Catch, v)
					continue
				}
				evidence = results[0].Message
				t.Logf("seed %d: %s", seed, firstLine(evidence))
			}
			if !t.Failed() {
				proof.Rejected(t, broken.MutantID(seam, b.Name), b.Catch, evidence)
			}
		})
	}
}

// Every natural-window store (a race over one yield, nothing held open) is rejected by the check
// of its race class on each of the fixed seeds.
func TestNaturalWindowsRejected(t *testing.T) {
	t.Run("eventstore", func(t *testing.T) {
		naturalRejected(t, "eventstore", kits.EventStoreKit(), broken.NaturalEventStores())
	})
	t.Run("snapshotstore", func(t *testing.T) {
		naturalRejected(t, "snapshotstore", kits.SnapshotStoreKit(), broken.NaturalSnapshotStores())
	})
	t.Run("archivestore", func(t *testing.T) {
		naturalRejected(t, "archivestore", kits.ArchiveStoreKit(), broken.NaturalArchiveStores())
	})
	t.Run("branchregistry", func(t *testing.T) {
		naturalRejected(t, "branchregistry", kits.BranchRegistryKit(), broken.NaturalBranchRegistries())
	})
	t.Run("contentstore", func(t *testing.T) {
		naturalRejected(t, "contentstore", kits.ContentStoreKit(), broken.NaturalContentStores())
	})
	t.Run("durablestatestore", func(t *testing.T) {
		naturalRejected(t, "durablestatestore", kits.DurableStateStoreKit(), broken.NaturalDurableStateStores())
	})
	t.Run("readmodelstore", func(t *testing.T) {
		naturalRejected(t, "readmodelstore", kits.ReadModelStoreKit(), broken.NaturalReadModelStores())
	})
}
