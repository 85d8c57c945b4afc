package postgres_test

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/dispatch/postgres"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/spi"
)

// The PostgreSQL dispatcher answers dispatcher/explore's scripts as the in-memory reference does,
// seeds 1..20.
func TestExploreSeeds(t *testing.T) {
	dsn := storespg.TestDSN(t)
	f := func(ctx context.Context) (spi.ExecutionDispatcher, func(), error) {
		db, cleanup, err := storespg.OpenTemp(ctx, dsn, "kitdisp")
		if err != nil {
			return nil, nil, err
		}
		d, err := postgres.New(ctx, db.Pool(), []string{"cpu", "gpu"})
		return d, cleanup, err
	}
	for seed := int64(1); seed <= 20; seed++ {
		rs, err := kits.Run(context.Background(), kits.ExecutionDispatcherKit(), f, kits.Options{Run: "^dispatcher/explore$", Seed: seed})
		if err != nil || len(rs) != 1 || rs[0].Verdict != kits.Pass {
			t.Errorf("seed %d: dispatcher/explore = %v, %v", seed, rs, err)
		}
	}
}
