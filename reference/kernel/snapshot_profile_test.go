package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// profileLog writes, at profile p, a log with a completed step (an input the 1.26 fold drops), a
// caught untyped failure (a status the 1.21 fold changed), a park, its answer and an end.
func profileLog(t *testing.T, p fold.Profile) []spi.Envelope {
	t.Helper()
	h := newHarness(t, func(c *Config) { c.Profile = p })
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		if _, err := c.Run("s1", h.effect("s1", 1), map[string]int{"x": 1}); err != nil {
			return nil, err
		}
		if _, err := c.Run("s2", func(*EffectContext, json.RawMessage) (any, error) { return nil, errors.New("boom") }, 2); err == nil {
			return nil, errors.New("s2 should fail")
		}
		if _, err := c.Suspend(SuspendConfig{On: "g"}); err != nil {
			return nil, err
		}
		return c.Run("s3", h.effect("s3", 3), 3)
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	h.ok(h.rt.Resume(ctx, "x", "g", json.RawMessage(`1`)))
	return h.log("x")
}

// stateThroughSnapshot is Runtime.State over log with one snapshot: fold(writer, log[:k+1]).
func stateThroughSnapshot(t *testing.T, reader, writer fold.Profile, log []spi.Envelope, k int) fold.State {
	t.Helper()
	ctx := context.Background()
	es, ss := memory.NewEventStore(), memory.NewSnapshotStore()
	if err := es.Append(ctx, "x", log, spi.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	prefix := foldAt(t, writer, log[:k+1])
	b, err := fold.CanonicalState(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := ss.Save(ctx, spi.Snapshot{ExecutionID: "x", Sequence: prefix.Sequence, State: b}); err != nil {
		t.Fatal(err)
	}
	rt, err := New(Config{Store: es, Snapshots: ss, Profile: reader, SnapshotsWrittenBy: writer})
	if err != nil {
		t.Fatal(err)
	}
	st, err := rt.State(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func foldAt(t *testing.T, p fold.Profile, log []spi.Envelope) fold.State {
	t.Helper()
	st, err := fold.Fold(p, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func canonOf(t *testing.T, st fold.State) string {
	t.Helper()
	b, err := fold.CanonicalState(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Reference: spec §3 and §4 snapshots, I-KERNEL-24 — a runtime at any profile reads its own
// snapshots so that snapshot at k plus the tail folds to the whole log at that profile, for every
// k; a runtime at the current profile reads an older profile's snapshots through the normaliser.
func TestOwnSnapshotsAtEveryProfile(t *testing.T) {
	clauses := []string{"S3.snapshot.equivalence", "S4.snapshot.every-k", "I-KERNEL-24"}
	for _, v := range []string{"1.20.0", "1.25.0", "1.26.0"} {
		p := fold.MustProfile(v)
		log := profileLog(t, p)
		want := canonOf(t, foldAt(t, p, log))
		for k := range log {
			got := canonOf(t, stateThroughSnapshot(t, p, p, log, k))
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("kernel/own-snapshots %v: State(profile %s, own snapshot at %d + tail) (-fold of the log +got):\n%s", clauses, v, k, d)
			}
		}
		if v == fold.Current().Version() {
			continue
		}
		// the same log read by a current runtime from snapshots an older fold wrote
		wantNow := canonOf(t, foldAt(t, fold.Current(), log))
		for k := range log {
			got := canonOf(t, stateThroughSnapshot(t, fold.Current(), p, log, k))
			if d := cmp.Diff(wantNow, got); d != "" {
				t.Errorf("kernel/own-snapshots %v: State(current, %s snapshot at %d + tail) (-fold of the log +got):\n%s", clauses, v, k, d)
			}
		}
		if _, err := New(Config{Store: memory.NewEventStore(), Profile: p, SnapshotsWrittenBy: fold.Current()}); err == nil {
			failf(t, "kernel/own-snapshots", clauses, "New(Profile "+v+", SnapshotsWrittenBy current)", "no error", "a config error")
		}
	}
}
