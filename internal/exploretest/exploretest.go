package exploretest

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
)

// DefaultSeeds is how many seeds the default suite explores a reference with; `make
// explore-seeds` sets LOOM_EXPLORE_SEEDS for a longer run (20 and more).
const DefaultSeeds = 5

// Count is the number of seeds to explore: LOOM_EXPLORE_SEEDS, or def.
func Count(t testing.TB, def int) int {
	t.Helper()
	s := os.Getenv("LOOM_EXPLORE_SEEDS")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("LOOM_EXPLORE_SEEDS=%q: want a positive number of seeds", s)
	}
	return n
}

// Seeds runs the kit's exploration check (<kit>/explore) with seeds 1..Count against the store f
// makes, failing on any verdict but pass: no legal choice is blamed, nothing is flaky.
func Seeds[T any](t *testing.T, kit kits.Kit[T], f kits.Factory[T]) {
	t.Helper()
	for seed := int64(1); seed <= int64(Count(t, DefaultSeeds)); seed++ {
		rs, err := kits.Run(context.Background(), kit, f, kits.Options{Run: "^" + kit.Name + "/explore$", Seed: seed})
		if err != nil || len(rs) != 1 {
			t.Fatalf("Run(%s/explore) = %d results, %v", kit.Name, len(rs), err)
		}
		if rs[0].Verdict != kits.Pass {
			t.Errorf("seed %d: %s/explore = %s: %s", seed, kit.Name, rs[0].Verdict, rs[0].Message)
		}
	}
}
