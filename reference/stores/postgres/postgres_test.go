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

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	dsn := postgres.TestDSN(t)
	schema := postgres.UniqueSchema("newer")
	db, err := postgres.Open(ctx, dsn, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.DropSchema(ctx); db.Close() }()
	if _, err := db.Pool().Exec(ctx, `UPDATE `+schema+`.loom_schema SET version = 99`); err != nil {
		t.Fatal(err)
	}
	again, err := postgres.Open(ctx, dsn, schema)
	if err == nil {
		again.Close()
		t.Fatal("Open(schema at version 99) = nil error, want one naming the version")
	}
	// Opening the same schema twice at the current version is fine (idempotent migration).
	if _, err := db.Pool().Exec(ctx, `UPDATE `+schema+`.loom_schema SET version = $1`, postgres.SchemaVersion); err != nil {
		t.Fatal(err)
	}
	again, err = postgres.Open(ctx, dsn, schema)
	if err != nil {
		t.Fatalf("Open(current schema) again = %v, want nil", err)
	}
	again.Close()
}

func TestContentStoreKit(t *testing.T) {
	kits.ContentStore(t, factory(t, func(d *postgres.DB) spi.ContentStore { return d.Content() }))
}

func TestDurableStateStoreKit(t *testing.T) {
	kits.DurableStateStore(t, factory(t, func(d *postgres.DB) spi.DurableStateStore { return d.DurableState() }))
}

func TestReadModelStoreKit(t *testing.T) {
	kits.ReadModelStore(t, factory(t, func(d *postgres.DB) spi.ReadModelStore { return d.ReadModels() }))
}
