package kernel

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/reference/stores/sharded"
	"github.com/loom-kernel/loom-conform/reference/stores/sqlite"
	"github.com/loom-kernel/loom-conform/spi"
)

// Reference: spec §2, §3 — the runtime works over any EventStore: worked example F (fresh run,
// resume, snapshots) gives the same log shape over the memory, SQLite and sharded stores.
func TestRuntimeOverEveryReferenceStore(t *testing.T) {
	ctx := testCtx(t)
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	shard, err := sharded.New(memory.NewEventStore(), memory.NewEventStore(), memory.NewEventStore())
	if err != nil {
		t.Fatal(err)
	}
	stores := []struct {
		name  string
		es    spi.EventStore
		snaps spi.SnapshotStore
	}{
		{"memory", memory.NewEventStore(), memory.NewSnapshotStore()},
		{"sqlite", db.Events(), db.Snapshots()},
		{"sharded", shard, nil},
	}
	var want []string
	for _, s := range stores {
		h := newHarness(t, func(c *Config) { c.Store = s.es; c.Snapshots = s.snaps })
		h.register("F", flowF(h))
		h.ok(h.rt.Start(ctx, "F", "x", nil))
		if s.snaps != nil {
			if _, err := h.rt.Snapshot(ctx, "x"); err != nil {
				t.Fatalf("%s: snapshot: %v", s.name, err)
			}
		}
		res := h.ok(h.rt.Resume(ctx, "x", "approve", json.RawMessage(`1`)))
		evs, err := s.es.Read(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		st, err := fold.Fold(fold.Current(), nil, evs)
		if err != nil || st.Status != fold.StatusCompleted || res.Status != fold.StatusCompleted {
			failf(t, "stores/"+s.name, []string{"S3.resume.rerun-served"}, "status", st.Status, "completed")
		}
		got := types(evs)
		if want == nil {
			want = got
		} else if len(got) != len(want) {
			failf(t, "stores/"+s.name, []string{"S3.emit.once", "S3.resume.rerun-served"}, "log", got, want)
		}
	}
}
