package kernel

import (
	"context"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/spi"
)

// CompactedError: the execution's log no longer starts at sequence 0 (a LogLifecycle compacted
// it, spec §7) and no snapshot covers the removed part, so its state cannot be read. The kernel
// never reads the archive to fill the gap (spec §7; I-LIFECYCLE-10). Nothing was appended.
type CompactedError struct {
	ExecutionID string
	// FirstSequence is the first sequence the log still holds.
	FirstSequence int64
	// SnapshotSequence is the latest snapshot's sequence, -1 when there is none (or no
	// SnapshotStore is wired).
	SnapshotSequence int64
}

func (e *CompactedError) Error() string {
	snap := "no snapshot"
	if e.SnapshotSequence >= 0 {
		snap = fmt.Sprintf("the latest snapshot covers only through sequence %d", e.SnapshotSequence)
	}
	return fmt.Sprintf("execution %q: the log was compacted (it starts at sequence %d) and %s; the archive is never read to fill the gap",
		e.ExecutionID, e.FirstSequence, snap)
}

// gateView is what the ingress gate reads of an execution: its folded state, the gate's facts and
// the flow that wrote the last envelope.
type gateView struct {
	st     fold.State
	facts  ingress.Facts
	flowID string
	empty  bool
}

// readGate reads an execution for the ingress gate. A log that starts at sequence 0 is folded and
// scanned whole, exactly as before compaction existed; a compacted one (spec §7) starts from the
// latest snapshot and folds and scans only the envelopes after it (I-LIFECYCLE-10, -11).
func (rt *Runtime) readGate(ctx context.Context, executionID string) (gateView, error) {
	events, err := rt.cfg.Store.Read(ctx, executionID)
	if err != nil {
		return gateView{}, &StoreError{ExecutionID: executionID, Op: "read", Err: err}
	}
	if len(events) == 0 {
		return gateView{empty: true}, nil
	}
	v := gateView{flowID: events[len(events)-1].WorkflowID}
	if events[0].Sequence == 0 {
		if v.st, err = fold.Fold(rt.cfg.Profile, nil, events); err != nil {
			return gateView{}, &StoreError{ExecutionID: executionID, Op: "fold", Err: err}
		}
		if v.facts, err = ingress.FactsFor(rt.cfg.Profile, events); err != nil {
			return gateView{}, &StoreError{ExecutionID: executionID, Op: "scan", Err: err}
		}
		return v, nil
	}
	base, err := rt.compactedBase(ctx, executionID, events[0].Sequence)
	if err != nil {
		return gateView{}, err
	}
	tail := events
	for len(tail) > 0 && tail[0].Sequence <= base.Sequence {
		tail = tail[1:]
	}
	if rt.cfg.Hooks.CompactedFoldsTailOnly {
		// broken on purpose: the snapshot is dropped and the tail folded as if it were the log
		base = fold.State{Sequence: -1}
		tail = rebased(tail)
	}
	if v.st, err = fold.Fold(rt.cfg.Profile, &base, tail); err != nil {
		return gateView{}, &StoreError{ExecutionID: executionID, Op: "fold", Err: err}
	}
	if v.facts, err = ingress.FactsAfterSnapshot(rt.cfg.Profile, base, tail); err != nil {
		return gateView{}, &StoreError{ExecutionID: executionID, Op: "scan", Err: err}
	}
	return v, nil
}

// compactedBase loads the latest snapshot of a log whose first stored sequence is first > 0 and
// checks it covers the removed part (its sequence is at least first-1); otherwise a
// *CompactedError.
func (rt *Runtime) compactedBase(ctx context.Context, executionID string, first int64) (fold.State, error) {
	refuse := &CompactedError{ExecutionID: executionID, FirstSequence: first, SnapshotSequence: -1}
	if rt.cfg.Snapshots == nil {
		return fold.State{}, refuse
	}
	snap, err := rt.cfg.Snapshots.LoadLatest(ctx, executionID)
	switch {
	case errors.Is(err, spi.ErrNotFound):
		return fold.State{}, refuse
	case err != nil:
		return fold.State{}, &StoreError{ExecutionID: executionID, Op: "load snapshot", Err: err}
	}
	if snap.Sequence < first-1 {
		refuse.SnapshotSequence = snap.Sequence
		return fold.State{}, refuse
	}
	s, err := fold.ParseState(snap.State)
	if err != nil {
		return fold.State{}, &StoreError{ExecutionID: executionID, Op: "load snapshot", Err: err}
	}
	if rt.cfg.SnapshotsWrittenBy.Version() != rt.cfg.Profile.Version() || rt.cfg.Hooks.NormalizeOwnSnapshots {
		s = fold.NormalizeSnapshotState(s, rt.cfg.SnapshotsWrittenBy)
	}
	return s, nil
}

// rebased renumbers envelopes from sequence 0 (the CompactedFoldsTailOnly mutant only).
func rebased(evs []spi.Envelope) []spi.Envelope {
	out := make([]spi.Envelope, len(evs))
	for i, e := range evs {
		e.Sequence = int64(i)
		out[i] = e
	}
	return out
}
