package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/sqlite"
	"github.com/loom-kernel/loom-conform/spi"
)

// open returns a factory of fresh databases, each in its own file under dir.
func open[T any](t *testing.T, pick func(*sqlite.DB) T) kits.Factory[T] {
	dir := t.TempDir()
	n := 0
	return func(ctx context.Context) (T, func(), error) {
		n++
		path := filepath.Join(dir, "kit-"+itoa(n)+".db")
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			var zero T
			return zero, nil, err
		}
		return pick(db), func() { db.Close(); os.Remove(path) }, nil
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestEventStoreKit(t *testing.T) {
	kits.EventStore(t, open(t, func(d *sqlite.DB) spi.EventStore { return d.EventsWithClock(time.Now) }))
}

func TestSnapshotStoreKit(t *testing.T) {
	kits.SnapshotStore(t, open(t, func(d *sqlite.DB) spi.SnapshotStore { return d.Snapshots() }))
}

func TestArchiveStoreKit(t *testing.T) {
	kits.ArchiveStore(t, open(t, func(d *sqlite.DB) spi.ArchiveStore { return d.Archive() }))
}

func TestBranchRegistryKit(t *testing.T) {
	kits.BranchRegistry(t, open(t, func(d *sqlite.DB) spi.BranchRegistry { return d.Branches() }))
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loom.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	e := spi.Envelope{ID: "a", WorkflowID: "w", ExecutionID: "x", EventType: "T", Payload: []byte(`{"n":1}`)}
	if err := db.Events().Append(ctx, "x", []spi.Envelope{e}, spi.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open(%s) again = %v, want nil", path, err)
	}
	defer db.Close()
	got, err := db.Events().Read(ctx, "x")
	if err != nil || len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("Read(x) after reopen = %v, %v, want the one envelope", got, err)
	}
	var v int
	if err := db.SQL().QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != sqlite.SchemaVersion {
		t.Fatalf("user_version = %d, %v, want %d", v, err, sqlite.SchemaVersion)
	}
	var mode string
	if err := db.SQL().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v, want wal", mode, err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loom.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := sqlite.Open(ctx, path); err == nil {
		t.Fatalf("Open(schema 99) = nil, want an error naming the version")
	}
}

// Snapshots are out of band (spec §3): saving, pruning and deleting snapshots in the same database
// never changes the event log.
func TestSnapshotsOutOfBand(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "loom.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := spi.Envelope{ID: "a", WorkflowID: "w", ExecutionID: "x", EventType: "T", Payload: []byte(`{}`)}
	if err := db.Events().Append(ctx, "x", []spi.Envelope{e}, spi.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	ss := db.Snapshots()
	for s := int64(0); s < 3; s++ {
		if err := ss.Save(ctx, spi.Snapshot{ExecutionID: "x", Sequence: s, State: []byte(`{"sequence":0}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ss.PruneSnapshots(ctx, "x", spi.SeqRange{From: 0, Through: 1}); err != nil {
		t.Fatal(err)
	}
	if err := ss.DeleteExecution(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	got, err := db.Events().Read(ctx, "x")
	if err != nil || len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("stores/snapshots-out-of-band [S3.snapshot.out-of-band]: Read(x) = %v, %v, want the one appended envelope", got, err)
	}
}

func TestContentStoreKit(t *testing.T) {
	kits.ContentStore(t, open(t, func(d *sqlite.DB) spi.ContentStore { return d.Content() }))
}

func TestDurableStateStoreKit(t *testing.T) {
	kits.DurableStateStore(t, open(t, func(d *sqlite.DB) spi.DurableStateStore { return d.DurableState() }))
}

func TestReadModelStoreKit(t *testing.T) {
	kits.ReadModelStore(t, open(t, func(d *sqlite.DB) spi.ReadModelStore { return d.ReadModels() }))
}
