package exploretest

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
)

// Seeds runs the kit's exploration check (<kit>/explore) with seeds 1..20 against the store f
// makes, failing on any verdict but pass: no legal choice is blamed, nothing is flaky.
func Seeds[T any](t *testing.T, kit kits.Kit[T], f kits.Factory[T]) {
	t.Helper()
	for seed := int64(1); seed <= 20; seed++ {
		rs, err := kits.Run(context.Background(), kit, f, kits.Options{Run: "^" + kit.Name + "/explore$", Seed: seed})
		if err != nil || len(rs) != 1 {
			t.Fatalf("Run(%s/explore) = %d results, %v", kit.Name, len(rs), err)
		}
		if rs[0].Verdict != kits.Pass {
			t.Errorf("seed %d: %s/explore = %s: %s", seed, kit.Name, rs[0].Verdict, rs[0].Message)
		}
	}
}
