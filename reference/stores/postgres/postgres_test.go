package postgres_test

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/spi"
)

func factory[T any](t *testing.T, pick func(*postgres.DB) T) kits.Factory[T] {
	dsn := postgres.TestDSN(t)
	return func(ctx context.Context) (T, func(), error) {
		db, cleanup, err := postgres.OpenTemp(ctx, dsn, "kit")
		if err != nil {
			var zero T
			return zero, nil, err
		}
		return pick(db), cleanup, nil
	}
}

func TestEventStoreKit(t *testing.T) {
	kits.EventStore(t, factory(t, func(d *postgres.DB) spi.EventStore { return d.Events() }))
}

func TestSnapshotStoreKit(t *testing.T) {
	kits.SnapshotStore(t, factory(t, func(d *postgres.DB) spi.SnapshotStore { return d.Snapshots() }))
}

func TestArchiveStoreKit(t *testing.T) {
	kits.ArchiveStore(t, factory(t, func(d *postgres.DB) spi.ArchiveStore { return d.Archive() }))
}

func TestBranchRegistryKit(t *testing.T) {
	kits.BranchRegistry(t, factory(t, func(d *postgres.DB) spi.BranchRegistry { return d.Branches() }))
}

func TestOpenRefusesBadSchemaName(t *testing.T) {
	dsn := postgres.TestDSN(t)
	if _, err := postgres.Open(context.Background(), dsn, `x"; DROP TABLE y; --`); err == nil {
		t.Fatal(`Open(schema with quotes) = nil, want an error`)
	}
}

func TestStoreNowIsDatabaseTime(t *testing.T) {
	ctx := context.Background()
	db, cleanup, err := postgres.OpenTemp(ctx, postgres.TestDSN(t), "now")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	var dbms int64
	if err := db.Pool().QueryRow(ctx, `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint`).Scan(&dbms); err != nil {
		t.Fatal(err)
	}
	got, err := db.Events().StoreNow(ctx)
	if err != nil || got < dbms || got-dbms > 5000 {
		t.Fatalf("StoreNow() = %d, %v, want database time at or just after %d", got, err, dbms)
	}
}
