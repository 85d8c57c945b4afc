package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// Errors of the lifecycle's refusals; each leaves the log, the snapshots and the archive as they were.
var (
	// ErrNoArchive: compaction needs an ArchiveStore (spec §7: it refuses without one).
	ErrNoArchive = errors.New("lifecycle: compaction refuses without an ArchiveStore")
	// ErrNoSnapshots: compaction needs a SnapshotStore, or the remaining log could not be resumed.
	ErrNoSnapshots = errors.New("lifecycle: compaction refuses without a SnapshotStore")
	// ErrNoDeleteThrough: the store lacks deleteThrough; the lifecycle refuses rather than fall
	// back to deleteExecution (spec §7).
	ErrNoDeleteThrough = errors.New("lifecycle: the EventStore has no deleteThrough; refusing rather than falling back to deleteExecution")
	// ErrNoPrune: the SnapshotStore lacks listSequences or pruneSnapshots.
	ErrNoPrune = errors.New("lifecycle: pruning needs SnapshotStore.listSequences and pruneSnapshots")
)

// Config wires a LogLifecycle. Store is required.
type Config struct {
	Store     spi.EventStore
	Snapshots spi.SnapshotStore // required by Compact and PruneSnapshots
	Archive   spi.ArchiveStore  // required by Compact and ReadArchived
	// Profile is the fold profile Compact folds with; zero = current.
	Profile fold.Profile
	// Now is the injected clock in epoch milliseconds, used when the store has no storeNow.
	// Default: the wall clock.
	Now func() int64
	// Hooks deliberately break the lifecycle; they exist so tests can prove the checks reject a
	// broken one. Never set them outside tests.
	Hooks Hooks
}

// Hooks are mutants of the lifecycle (mutants.go registers each).
type Hooks struct {
	TruncateBeforeArchive bool // deleteThrough first, archive after
	ArchiveOneShort       bool // archive 0..through-1 but truncate 0..through
	CompactWithoutArchive bool // truncate even with no ArchiveStore
	FallBackToDelete      bool // use deleteExecution when the store lacks deleteThrough
	ReadArchiveOnReplay   bool // Replay reads the archive and folds it with the log
	PruneLatest           bool // prune every snapshot, the latest included
	PruneIgnoresDryRun    bool // a dry run deletes
	ClaimFencing          bool // report fencing on a store without acquireFence
	IgnoreStoreNow        bool // always the injected clock, even when the store has storeNow
	NoClockFallback       bool // fail when the store has no storeNow
}

// LogLifecycle runs maintenance on execution logs.
type LogLifecycle struct{ cfg Config }

// New returns a LogLifecycle.
func New(cfg Config) (*LogLifecycle, error) {
	if cfg.Store == nil {
		return nil, errors.New("lifecycle: Config.Store is required")
	}
	if cfg.Profile == (fold.Profile{}) {
		cfg.Profile = fold.Current()
	}
	if cfg.Now == nil {
		cfg.Now = func() int64 { return time.Now().UnixMilli() }
	}
	return &LogLifecycle{cfg: cfg}, nil
}

// Compacted says what Compact did.
type Compacted struct {
	ExecutionID string
	Through     int64 // the last sequence removed from the log
	Archived    int   // envelopes appended to the archive
	Snapshot    int64 // sequence of the snapshot saved for the remaining log
}

// Compact removes envelopes 0..through of executionID from the log. In order: it folds them and
// saves the snapshot the remaining log resumes from, appends exactly those envelopes to the
// ArchiveStore, and only then deletes them with deleteThrough, so a concurrent append after
// through survives. It refuses, changing nothing, without an ArchiveStore, without a
// SnapshotStore, on a store without deleteThrough, and when through is not a stored sequence.
// A compaction interrupted after archiving is safe to retry: re-archiving equal envelopes is a
// no-op (I-STORE-18).
func (lc *LogLifecycle) Compact(ctx context.Context, executionID string, through int64) (Compacted, error) {
	res := Compacted{ExecutionID: executionID, Through: through}
	h := lc.cfg.Hooks
	if lc.cfg.Archive == nil && !h.CompactWithoutArchive {
		return res, ErrNoArchive
	}
	if lc.cfg.Snapshots == nil {
		return res, ErrNoSnapshots
	}
	deleter, hasThrough := lc.cfg.Store.(spi.ThroughDeleter)
	hasThrough = hasThrough && spi.Has(manifest.SeamEventStore, lc.cfg.Store, spi.MethodDeleteThrough)
	if !hasThrough && !h.FallBackToDelete {
		return res, ErrNoDeleteThrough
	}
	log, err := lc.cfg.Store.Read(ctx, executionID)
	if err != nil {
		return res, fmt.Errorf("lifecycle: compact %q: read: %w", executionID, err)
	}
	n := -1
	for i, e := range log {
		if e.Sequence == through {
			n = i + 1
		}
	}
	if n < 0 {
		return res, spi.Invalid("compact", "through", "%d is not a stored sequence of %q", through, executionID)
	}
	removed := log[:n]
	base, err := lc.compactedBase(ctx, executionID, log)
	if err != nil {
		return res, err
	}
	if base != nil && base.Sequence >= through {
		// a later snapshot already covers what stays: the remaining log resumes from it
		res.Snapshot = base.Sequence
	} else {
		folded := removed
		for len(folded) > 0 && base != nil && folded[0].Sequence <= base.Sequence {
			folded = folded[1:]
		}
		st, err := fold.Fold(lc.cfg.Profile, base, folded)
		if err != nil {
			return res, fmt.Errorf("lifecycle: compact %q: fold: %w", executionID, err)
		}
		state, err := fold.CanonicalState(st)
		if err != nil {
			return res, err
		}
		if err := lc.cfg.Snapshots.Save(ctx, spi.Snapshot{ExecutionID: executionID, Sequence: through, State: state}); err != nil {
			return res, fmt.Errorf("lifecycle: compact %q: save snapshot: %w", executionID, err)
		}
		res.Snapshot = through
	}
	archive := func() error {
		if lc.cfg.Archive == nil {
			return nil
		}
		batch := removed
		if h.ArchiveOneShort {
			batch = removed[:len(removed)-1]
		}
		if err := lc.cfg.Archive.Append(ctx, executionID, batch); err != nil {
			return fmt.Errorf("lifecycle: compact %q: archive: %w", executionID, err)
		}
		res.Archived = len(batch)
		return nil
	}
	truncate := func() error {
		var err error
		if hasThrough {
			err = deleter.DeleteThrough(ctx, executionID, through)
		} else if d, ok := lc.cfg.Store.(spi.ExecutionDeleter); ok {
			err = d.DeleteExecution(ctx, executionID)
		}
		if err != nil {
			return fmt.Errorf("lifecycle: compact %q: deleteThrough: %w", executionID, err)
		}
		return nil
	}
	steps := []func() error{archive, truncate}
	if h.TruncateBeforeArchive {
		steps = []func() error{truncate, archive}
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// ReadRange returns the log's envelopes with from <= sequence < to (to < 0: no bound) from the
// EventStore only; compacted envelopes are not there and the archive is never read.
func (lc *LogLifecycle) ReadRange(ctx context.Context, executionID string, from, to int64) ([]spi.Envelope, error) {
	if rr, ok := lc.cfg.Store.(spi.RangeReader); ok && spi.Has(manifest.SeamEventStore, lc.cfg.Store, spi.MethodReadRange) {
		return rr.ReadRange(ctx, executionID, from, to)
	}
	all, err := lc.cfg.Store.Read(ctx, executionID)
	if err != nil {
		return nil, err
	}
	var out []spi.Envelope
	for _, e := range all {
		if e.Sequence >= from && (to < 0 || e.Sequence < to) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Replay folds the execution from its latest snapshot (when a SnapshotStore is wired and holds one)
// and the log after it. It never reads the archive.
func (lc *LogLifecycle) Replay(ctx context.Context, executionID string) (fold.State, error) {
	var base *fold.State
	from := int64(0)
	if lc.cfg.Snapshots != nil {
		snap, err := lc.cfg.Snapshots.LoadLatest(ctx, executionID)
		switch {
		case err == nil:
			s, perr := fold.ParseState(snap.State)
			if perr != nil {
				return fold.State{}, perr
			}
			base, from = &s, snap.Sequence+1
		case !errors.Is(err, spi.ErrNotFound):
			return fold.State{}, err
		}
	}
	if lc.cfg.Hooks.ReadArchiveOnReplay && lc.cfg.Archive != nil {
		archived, err := lc.cfg.Archive.Read(ctx, executionID)
		if err != nil {
			return fold.State{}, err
		}
		tail, err := lc.ReadRange(ctx, executionID, 0, -1)
		if err != nil {
			return fold.State{}, err
		}
		return fold.Fold(lc.cfg.Profile, nil, append(archived, tail...))
	}
	tail, err := lc.ReadRange(ctx, executionID, from, -1)
	if err != nil {
		return fold.State{}, err
	}
	return fold.Fold(lc.cfg.Profile, base, tail)
}

// ReadArchived returns the archived envelopes of an execution: the one path that reads the archive
// (inspection of settled steps' inputs, spec §4 1.26.0).
func (lc *LogLifecycle) ReadArchived(ctx context.Context, executionID string) ([]spi.Envelope, error) {
	if lc.cfg.Archive == nil {
		return nil, ErrNoArchive
	}
	return lc.cfg.Archive.Read(ctx, executionID)
}

// compactedBase returns the state a second compaction folds on from: nil when the log starts at
// sequence 0, else the latest snapshot, which must cover the part an earlier compaction removed
// (the archive is never read back, spec §7).
func (lc *LogLifecycle) compactedBase(ctx context.Context, executionID string, log []spi.Envelope) (*fold.State, error) {
	if len(log) == 0 || log[0].Sequence == 0 {
		return nil, nil
	}
	snap, err := lc.cfg.Snapshots.LoadLatest(ctx, executionID)
	if err != nil {
		return nil, fmt.Errorf("lifecycle: compact %q: the log starts at %d: load snapshot: %w", executionID, log[0].Sequence, err)
	}
	if snap.Sequence < log[0].Sequence-1 {
		return nil, fmt.Errorf("lifecycle: compact %q: the log starts at %d and the latest snapshot covers only through %d", executionID, log[0].Sequence, snap.Sequence)
	}
	st, err := fold.ParseState(snap.State)
	if err != nil {
		return nil, fmt.Errorf("lifecycle: compact %q: snapshot: %w", executionID, err)
	}
	return &st, nil
}
