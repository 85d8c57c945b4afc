package lifecycle

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// PruneOptions configure PruneSnapshots.
type PruneOptions struct {
	// DryRun computes what would be deleted without deleting anything.
	DryRun bool
}

// Pruned says what PruneSnapshots deleted (or, in a dry run, would delete).
type Pruned struct {
	Stored  []int64      // the stored sequences before, from listSequences
	Range   spi.SeqRange // the range judged safe (empty when nothing is)
	Deleted []int64      // the sequences deleted (dry run: that would be deleted)
	Kept    int64        // the sequence of the snapshot kept (-1 when there is none)
}

// PruneSnapshots deletes every snapshot of executionID but the latest, which replay starts from
// (I-LIFECYCLE-2). It lists the stored sequences with listSequences, judges the range
// [first, second-latest] safe, and deletes exactly that range with pruneSnapshots; a dry run stops
// after judging.
func (lc *LogLifecycle) PruneSnapshots(ctx context.Context, executionID string, opts PruneOptions) (Pruned, error) {
	res := Pruned{Kept: -1}
	ss := lc.cfg.Snapshots
	lister, ok1 := ss.(spi.SequenceLister)
	pruner, ok2 := ss.(spi.SnapshotPruner)
	if ss == nil || !ok1 || !ok2 || !spi.Has(manifest.SeamSnapshotStore, ss, spi.MethodListSequences) ||
		!spi.Has(manifest.SeamSnapshotStore, ss, spi.MethodPruneSnapshots) {
		return res, ErrNoPrune
	}
	seqs, err := lister.ListSequences(ctx, executionID)
	if err != nil {
		return res, fmt.Errorf("lifecycle: prune %q: listSequences: %w", executionID, err)
	}
	res.Stored = seqs
	if len(seqs) == 0 {
		return res, nil
	}
	res.Kept = seqs[len(seqs)-1]
	keep := 1
	if lc.cfg.Hooks.PruneLatest {
		keep, res.Kept = 0, -1
	}
	if len(seqs) <= keep {
		return res, nil
	}
	res.Range = spi.SeqRange{From: seqs[0], Through: seqs[len(seqs)-1-keep]}
	res.Deleted = append([]int64(nil), seqs[:len(seqs)-keep]...)
	if opts.DryRun && !lc.cfg.Hooks.PruneIgnoresDryRun {
		return res, nil
	}
	deleted, err := pruner.PruneSnapshots(ctx, executionID, res.Range)
	if err != nil {
		return res, fmt.Errorf("lifecycle: prune %q: pruneSnapshots: %w", executionID, err)
	}
	res.Deleted = deleted
	return res, nil
}

// Fencing says whether writes to the store can be fenced.
type Fencing struct {
	Fenced bool
	// Reason explains the answer; for an unfenced store it says the deployment must be single-node.
	Reason string
}

// Fencing reports the store's fencing: a store that omits acquireFence performs no fencing, so the
// lifecycle says the deployment is single-node (spec §7) instead of pretending to fence.
func (lc *LogLifecycle) Fencing() Fencing {
	if spi.Has(manifest.SeamEventStore, lc.cfg.Store, spi.MethodAcquireFence) {
		return Fencing{Fenced: true, Reason: "the EventStore implements acquireFence: zombie writers are fenced"}
	}
	if lc.cfg.Hooks.ClaimFencing {
		return Fencing{Fenced: true, Reason: "fenced"}
	}
	return Fencing{Reason: "the EventStore omits acquireFence: no fencing, single-node only (spec §7)"}
}

// AcquireFence takes a new fence token for executionID when the store fences; on a store without
// acquireFence it returns token 0 and fenced false, never an error, as a single-node store needs
// no fence.
func (lc *LogLifecycle) AcquireFence(ctx context.Context, executionID string) (token int64, fenced bool, err error) {
	f, ok := lc.cfg.Store.(spi.Fencer)
	if !ok || !spi.Has(manifest.SeamEventStore, lc.cfg.Store, spi.MethodAcquireFence) {
		return 0, false, nil
	}
	t, err := f.AcquireFence(ctx, executionID)
	return t.Token, err == nil, err
}

// Now returns the time in epoch milliseconds: the store's storeNow when it has one (one clock for
// the fleet), else the injected clock (spec §7).
func (lc *LogLifecycle) Now(ctx context.Context) (int64, error) {
	if c, ok := lc.cfg.Store.(spi.Clock); ok && spi.Has(manifest.SeamEventStore, lc.cfg.Store, spi.MethodStoreNow) && !lc.cfg.Hooks.IgnoreStoreNow {
		return c.StoreNow(ctx)
	}
	if lc.cfg.Hooks.NoClockFallback {
		return 0, fmt.Errorf("lifecycle: the store has no storeNow: %w", spi.ErrUnsupported)
	}
	return lc.cfg.Now(), nil
}
