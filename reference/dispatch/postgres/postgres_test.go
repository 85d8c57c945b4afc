package postgres_test

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/dispatch/postgres"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// Reference: spec §6, §7 — the PostgreSQL dispatcher passes the ExecutionDispatcher kit. Needs
// LOOM_CONFORM_POSTGRES_DSN (scripts/with-services.sh); with CI=true it fails without one.
func TestPostgresDispatcherKit(t *testing.T) {
	dsn := storespg.TestDSN(t)
	kits.ExecutionDispatcher(t, func(ctx context.Context) (spi.ExecutionDispatcher, func(), error) {
		db, cleanup, err := storespg.OpenTemp(ctx, dsn, "kitdisp")
		if err != nil {
			return nil, nil, err
		}
		d, err := postgres.New(ctx, db.Pool(), []string{"cpu", "gpu"})
		return d, cleanup, err
	})
}

func TestChecksValid(t *testing.T) {
	if err := spec.Validate(postgres.Checks()); err != nil {
		t.Fatal(err)
	}
}
