package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/loom-kernel/loom-conform/kits/foldprops"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/lifecycle"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"pgregory.net/rapid"
)

// Compact at a random point of a random execution: fold(archive ++ remaining log) and the replay
// from the compaction snapshot and the remaining log both equal fold(original log), with an archive
// replay never reads.
func TestCompactProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		const id = "exec-prop"
		log := foldprops.Log(foldprops.GenOptions{ExecutionID: id, MaxActions: 25}).Draw(rt, "log")
		if len(log) == 0 {
			return
		}
		through := rapid.Int64Range(0, int64(len(log)-1)).Draw(rt, "through")
		want, err := fold.Fold(fold.Current(), nil, log)
		if err != nil {
			rt.Fatalf("Fold(original) = %v", err)
		}
		j := &journal{}
		es, ss, as := events{memory.NewEventStore(), j}, memory.NewSnapshotStore(), newArchive(j)
		if err := es.Append(ctx, id, log, spi.AppendOptions{}); err != nil {
			rt.Fatal(err)
		}
		lc, _ := lifecycle.New(lifecycle.Config{Store: es, Snapshots: ss, Archive: as})
		if _, err := lc.Compact(ctx, id, through); err != nil {
			rt.Fatalf("Compact(%d) = %v", through, err)
		}
		archived, _ := as.ArchiveStore.Read(ctx, id)
		rest, _ := es.Read(ctx, id)
		joined, err := fold.Fold(fold.Current(), nil, append(append([]spi.Envelope{}, archived...), rest...))
		if err != nil {
			rt.Fatalf("Fold(archive ++ remaining) = %v", err)
		}
		if d := sameState(want, joined); d != "" {
			rt.Fatalf("lifecycle/compact-property [S7.as.compact-archives-first I-LIFECYCLE-1]: Fold(archive ++ remaining) after (Compact %d) = another state, want fold(original):\n%s", through, d)
		}
		as.failReads = true
		replayed, err := lc.Replay(ctx, id)
		if err != nil {
			rt.Fatalf("Replay after Compact(%d) with a failing archive = %v", through, err)
		}
		if d := sameState(want, replayed); d != "" {
			rt.Fatalf("lifecycle/compact-property [S7.as.not-read-on-replay S3.snapshot.equivalence]: Replay() after (Compact %d) = another state, want fold(original):\n%s", through, d)
		}
	})
}

// A kernel execution compacted at a random point while parked loads from the remaining log and its
// snapshot (the kernel's replay path, Runtime.State, which every run starts from) to exactly the
// state of its uncompacted twin, with no archive wired at all.
func TestCompactedExecutionReplays(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		steps := rapid.IntRange(0, 6).Draw(rt, "steps")
		newRuntime := func(es spi.EventStore, ss spi.SnapshotStore) *kernel.Runtime {
			n, ids := int64(0), 0
			r, err := kernel.New(kernel.Config{Store: es, Snapshots: ss,
				Now:   func() int64 { n++; return 1_767_225_600_000 + n },
				NewID: func() string { ids++; return fmt.Sprintf("id-%d", ids) }})
			if err != nil {
				rt.Fatal(err)
			}
			add := func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
				var x int
				_ = json.Unmarshal(in, &x)
				return x + 1, nil
			}
			if err := r.Register(kernel.FlowDef{ID: "count", Fn: func(c *kernel.Context, in json.RawMessage) (any, error) {
				sum := 0
				for i := 0; i < steps; i++ {
					out, err := c.Run(fmt.Sprintf("s%d", i), add, sum)
					if err != nil {
						return nil, err
					}
					_ = json.Unmarshal(out, &sum)
				}
				v, err := c.Suspend(kernel.SuspendConfig{On: "approve"})
				if err != nil {
					return nil, err
				}
				return map[string]any{"sum": sum, "approved": v}, nil
			}}); err != nil {
				rt.Fatal(err)
			}
			return r
		}
		twinES, es := memory.NewEventStore(), memory.NewEventStore()
		ss := memory.NewSnapshotStore()
		twin, compacted := newRuntime(twinES, memory.NewSnapshotStore()), newRuntime(es, ss)
		for _, r := range []*kernel.Runtime{twin, compacted} {
			if res, err := r.Start(ctx, "count", "x", nil); err != nil || res.SuspendedOn != "approve" {
				rt.Fatalf("Start = %+v, %v, want parked on approve", res, err)
			}
		}
		log, _ := es.Read(ctx, "x")
		through := rapid.Int64Range(0, int64(len(log)-1)).Draw(rt, "through")
		lc, _ := lifecycle.New(lifecycle.Config{Store: es, Snapshots: ss, Archive: memory.NewArchiveStore()})
		if _, err := lc.Compact(ctx, "x", through); err != nil {
			rt.Fatalf("Compact(%d) = %v", through, err)
		}
		ws, err := twin.State(ctx, "x")
		if err != nil {
			rt.Fatal(err)
		}
		gs, err := compacted.State(ctx, "x")
		if err != nil {
			rt.Fatalf("lifecycle/compact-property [I-LIFECYCLE-1]: State() after (Compact %d) = %v, want the twin's state", through, err)
		}
		if d := sameState(ws, gs); d != "" {
			rt.Fatalf("lifecycle/compact-property [I-LIFECYCLE-1]: State() after (Compact %d) = another state, want the twin's:\n%s", through, d)
		}
		if gs.Status != fold.StatusSuspended {
			rt.Fatalf("State() after (Compact %d) status = %s, want suspended", through, gs.Status)
		}
	})
}
