package kits

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

func ssIsolation(ctx context.Context, c *SnapshotStoreCase) error {
	a, b := c.ExecID("iso-a"), c.ExecID("iso-b")
	sa, sb := snap(a, 2, stateAt(2, "a")), snap(b, 9, stateAt(9, "b"))
	if err := save(ctx, c, sa); err != nil {
		return err
	}
	if err := save(ctx, c, sb); err != nil {
		return err
	}
	if err := expectLatest(ctx, c, a, sa, "saves to two executions"); err != nil {
		return err
	}
	if err := expectLatest(ctx, c, b, sb, "saves to two executions"); err != nil {
		return err
	}
	// Ids that extend a's id (a store keyed <id><seq> or scanning a key prefix without a
	// separator mixes them) hold higher sequences; a's latest stays a's own (I-STORE-4).
	for i, ext := range []string{a + "0", a + "/", a + "-1"} {
		if err := save(ctx, c, snap(ext, int64(90+i), stateAt(int64(90+i), "extends"))); err != nil {
			return err
		}
	}
	if err := expectLatest(ctx, c, a, sa, "saves at 90..92 to ids that extend it"); err != nil {
		return err
	}
	if sl, ok := c.Store.(spi.SequenceLister); ok && spi.Has(manifest.SeamSnapshotStore, c.Store, spi.MethodListSequences) {
		got, err := sl.ListSequences(ctx, a)
		if err != nil {
			return c.Failf("ListSequences", fmt.Sprintf("%q", a), err, "nil")
		}
		if d := c.Diff("ListSequences", fmt.Sprintf("%q) after saves to ids that extend it (", a), []int64{2}, got); d != nil {
			return d
		}
	}
	return nil
}

func ssIDsEveryMethod(ctx context.Context, c *SnapshotStoreCase) error {
	for _, p := range idPairs(c.ExecID("ids")) {
		if err := ssIDPair(ctx, c, p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}

func ssIDPair(ctx context.Context, c *SnapshotStoreCase, a, b string) error {
	a1, a3 := snap(a, 1, stateAt(1, "a")), snap(a, 3, stateAt(3, "a"))
	b2, b5 := snap(b, 2, stateAt(2, "b")), snap(b, 5, stateAt(5, "b"))
	b2.Sealed = true
	for _, s := range []spi.Snapshot{b2, b5, a1, a3} {
		if err := save(ctx, c, s); err != nil {
			return err
		}
	}
	next := fmt.Sprintf("saves to %q and %q", a, b)
	if err := expectLatest(ctx, c, a, a3, next); err != nil {
		return err
	}
	if err := expectLatest(ctx, c, b, b5, next); err != nil {
		return err
	}
	if ssHas(c, spi.MethodLoadLatestSealed) {
		sl := c.Store.(spi.SealedLoader)
		_, err := sl.LoadLatestSealed(ctx, a)
		if e := expectErr(c, "LoadLatestSealed", fmt.Sprintf("%q) next to (%q with a sealed snapshot", a, b), err, spi.ErrNotFound); e != nil {
			return e
		}
		got, err := sl.LoadLatestSealed(ctx, b)
		if err != nil {
			return c.Failf("LoadLatestSealed", fmt.Sprintf("%q", b), err, "the sealed snapshot at 2")
		}
		if d := c.Diff("LoadLatestSealed", fmt.Sprintf("%q) after (%s", b, next), b2, got, snapCmp); d != nil {
			return d
		}
	}
	if ssHas(c, spi.MethodListSequences) {
		for _, x := range []struct {
			id   string
			want []int64
		}{{a, []int64{1, 3}}, {b, []int64{2, 5}}} {
			got, err := listSeqs(ctx, c, x.id)
			if err != nil {
				return err
			}
			if d := c.Diff("ListSequences", fmt.Sprintf("%q) after (%s", x.id, next), x.want, got); d != nil {
				return d
			}
		}
	}
	if ssHas(c, spi.MethodPruneSnapshots) {
		got, err := c.Store.(spi.SnapshotPruner).PruneSnapshots(ctx, a, spi.SeqRange{From: 0, Through: 4})
		if err != nil {
			return c.Failf("PruneSnapshots", fmt.Sprintf("%q, [0, 4]", a), err, "nil")
		}
		if d := c.Diff("PruneSnapshots", fmt.Sprintf("%q, [0, 4]) next to (%q", a, b), []int64{1, 3}, nonNilSeqs(got)); d != nil {
			return d
		}
		if err := expectLatest(ctx, c, b, b5, fmt.Sprintf("PruneSnapshots on %q", a)); err != nil {
			return err
		}
		if err := save(ctx, c, a3); err != nil {
			return err
		}
	}
	if ssHas(c, spi.MethodDeleteExecution) {
		// Both ways: a delete that matches by prefix or pattern (deleteExecution("x") removing
		// "x-2") takes the other id with it in one direction only.
		del := c.Store.(spi.SnapshotDeleter)
		if err := del.DeleteExecution(ctx, a); err != nil {
			return c.Failf("DeleteExecution", fmt.Sprintf("%q", a), err, "nil")
		}
		if err := expectLatest(ctx, c, b, b5, fmt.Sprintf("DeleteExecution of %q", a)); err != nil {
			return err
		}
		if err := save(ctx, c, a3); err != nil {
			return err
		}
		if err := del.DeleteExecution(ctx, b); err != nil {
			return c.Failf("DeleteExecution", fmt.Sprintf("%q", b), err, "nil")
		}
		if err := expectLatest(ctx, c, a, a3, fmt.Sprintf("DeleteExecution of %q", b)); err != nil {
			return err
		}
	}
	return nil
}
