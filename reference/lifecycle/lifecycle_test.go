package lifecycle_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/lifecycle"
	"github.com/loom-kernel/loom-conform/spi"
)

var jsonCmp = cmp.Options{cmp.Comparer(func(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return spi.SameJSON(a, b)
})}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func run(t *testing.T, id string) {
	t.Helper()
	for _, c := range lifecycleChecks() {
		if c.id == id {
			if err := c.run(lifecycle.Hooks{}); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no check %s", id)
}

func TestCompactArchivesFirst(t *testing.T)    { run(t, "lifecycle/compact-archives-first") }
func TestCompactNeedsArchive(t *testing.T)     { run(t, "lifecycle/compact-needs-archive") }
func TestDeleteThroughNoFallback(t *testing.T) { run(t, "lifecycle/delete-through-no-fallback") }
func TestArchiveNotReadOnReplay(t *testing.T)  { run(t, "lifecycle/archive-not-read") }
func TestPruneSnapshots(t *testing.T)          { run(t, "lifecycle/prune-snapshots") }
func TestNoFenceSingleNode(t *testing.T)       { run(t, "lifecycle/no-fence-single-node") }
func TestStoreNowFallback(t *testing.T)        { run(t, "lifecycle/store-now-fallback") }
