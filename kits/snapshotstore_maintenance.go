package kits

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

func ssDelete(ctx context.Context, c *SnapshotStoreCase) error {
	d := c.Store.(spi.SnapshotDeleter)
	x, y := c.ExecID("del"), c.ExecID("del-keep")
	if err := save(ctx, c, snap(x, 1, stateAt(1, "x"))); err != nil {
		return err
	}
	ky := snap(y, 1, stateAt(1, "y"))
	if err := save(ctx, c, ky); err != nil {
		return err
	}
	if err := d.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
	}
	_, err := c.Store.LoadLatest(ctx, x)
	if e := expectErr(c, "LoadLatest", fmt.Sprintf("%q) after DeleteExecution (", x), err, spi.ErrNotFound); e != nil {
		return e
	}
	if err := d.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q) again (", x), err, "nil")
	}
	return expectLatest(ctx, c, y, ky, "DeleteExecution of another id")
}

func ssPrune(ctx context.Context, c *SnapshotStoreCase) error {
	p := c.Store.(spi.SnapshotPruner)
	x, y := c.ExecID("prune"), c.ExecID("prune-other")
	for s := int64(1); s <= 10; s++ {
		if err := save(ctx, c, snap(x, s, stateAt(s, "p"))); err != nil {
			return err
		}
	}
	ys := snap(y, 5, stateAt(5, "y"))
	if err := save(ctx, c, ys); err != nil {
		return err
	}
	got, err := p.PruneSnapshots(ctx, x, spi.SeqRange{From: 3, Through: 6})
	if err != nil {
		return c.Failf("PruneSnapshots", fmt.Sprintf("%q, [3, 6]", x), err, "nil")
	}
	if got == nil {
		got = []int64{}
	}
	if d := c.Diff("PruneSnapshots", fmt.Sprintf("%q, [3, 6]", x), []int64{3, 4, 5, 6}, got); d != nil {
		return d
	}
	for _, probe := range []struct {
		r    spi.SeqRange
		want []int64
	}{{spi.SeqRange{From: 0, Through: 1}, []int64{1}}, {spi.SeqRange{From: 10, Through: 20}, []int64{10}}, {spi.SeqRange{From: 3, Through: 6}, []int64{}}} {
		got, err := p.PruneSnapshots(ctx, x, probe.r)
		if err != nil {
			return c.Failf("PruneSnapshots", fmt.Sprintf("%q, [%d, %d]", x, probe.r.From, probe.r.Through), err, "nil")
		}
		if got == nil {
			got = []int64{}
		}
		if d := c.Diff("PruneSnapshots", fmt.Sprintf("%q, [%d, %d]", x, probe.r.From, probe.r.Through), probe.want, got); d != nil {
			return d
		}
	}
	if err := expectLatest(ctx, c, x, snap(x, 9, stateAt(9, "p")), "prunes of [3,6], [0,1], [10,20]"); err != nil {
		return err
	}
	if err := expectLatest(ctx, c, y, ys, "prunes of another execution"); err != nil {
		return err
	}
	if sl, ok := c.Store.(spi.SequenceLister); ok && spi.Has(manifest.SeamSnapshotStore, c.Store, spi.MethodListSequences) {
		left, err := sl.ListSequences(ctx, x)
		if err != nil {
			return c.Failf("ListSequences", fmt.Sprintf("%q", x), err, "nil")
		}
		if d := c.Diff("ListSequences", fmt.Sprintf("%q) after prunes (", x), []int64{2, 7, 8, 9}, left); d != nil {
			return d
		}
	}
	_, err = p.PruneSnapshots(ctx, x, spi.SeqRange{From: 5, Through: 2})
	return expectErr(c, "PruneSnapshots", fmt.Sprintf("%q, [5, 2]", x), err, spi.ErrInvalidArgument)
}

func ssListSequences(ctx context.Context, c *SnapshotStoreCase) error {
	x := c.ExecID("seqs")
	got, err := listSeqs(ctx, c, x)
	if err != nil {
		return err
	}
	if d := c.Diff("ListSequences", fmt.Sprintf("%q) before any save (", x), []int64{}, got); d != nil {
		return d
	}
	for _, s := range []int64{40, 2, 17, 2, 0, 99, 17} {
		if err := save(ctx, c, snap(x, s, stateAt(s, "q"))); err != nil {
			return err
		}
	}
	if err := save(ctx, c, snap(c.ExecID("seqs-other"), 50, stateAt(50, "o"))); err != nil {
		return err
	}
	got, err = listSeqs(ctx, c, x)
	if err != nil {
		return err
	}
	return c.Diff("ListSequences", fmt.Sprintf("%q) after saves at 40, 2, 17, 2, 0, 99, 17 (", x), []int64{0, 2, 17, 40, 99}, got)
}

func ssPruneDryRun(ctx context.Context, c *SnapshotStoreCase) error {
	x := c.ExecID("dry-run")
	for s := int64(0); s < 20; s += 3 {
		if err := save(ctx, c, snap(x, s, stateAt(s, "d"))); err != nil {
			return err
		}
	}
	for _, s := range []int64{6, 9, 18} { // saved again: still one snapshot each (I-STORE-65)
		if err := save(ctx, c, snap(x, s, stateAt(s, "e"))); err != nil {
			return err
		}
	}
	r := spi.SeqRange{From: 4, Through: 13}
	all, err := listSeqs(ctx, c, x)
	if err != nil {
		return err
	}
	predicted := []int64{}
	for _, s := range all {
		if r.Contains(s) {
			predicted = append(predicted, s)
		}
	}
	got, err := c.Store.(spi.SnapshotPruner).PruneSnapshots(ctx, x, r)
	if err != nil {
		return c.Failf("PruneSnapshots", fmt.Sprintf("%q, [4, 13]", x), err, "nil")
	}
	if got == nil {
		got = []int64{}
	}
	return c.Diff("PruneSnapshots", fmt.Sprintf("%q, [4, 13]) after saves at 0, 3, .., 18 and again at 6, 9, 18, vs the dry run from ListSequences (", x), predicted, got)
}
