package spi

import (
	"context"
	"encoding/json"
)

// Snapshot is a folded state of an execution after the envelope at Sequence (spec §3).
type Snapshot struct {
	ExecutionID string          `json:"executionId"`
	Sequence    int64           `json:"sequence"`
	State       json.RawMessage `json:"state"`
	// Sealed marks a snapshot its writer declared sealed (see loadLatestSealed, docs/spi.md).
	Sealed bool `json:"sealed,omitempty"`
}

// SnapshotStore is the snapshot seam (spec §3, §7), required part. Snapshots are out of band: they
// never change the event log.
type SnapshotStore interface {
	// Save stores the snapshot; a second save at the same (execution, sequence) replaces the whole
	// first, state and sealed flag (I-STORE-15, I-STORE-32). The state is kept as the same JSON value
	// (key order may change); the exact decimals of numbers a double cannot hold are recommended
	// (I-STORE-25).
	Save(ctx context.Context, s Snapshot) error
	// LoadLatest returns the snapshot with the highest sequence, or ErrNotFound.
	LoadLatest(ctx context.Context, executionID string) (Snapshot, error)
}

// SnapshotDeleter is the optional SnapshotStore.deleteExecution.
type SnapshotDeleter interface {
	// DeleteExecution removes that execution's snapshots only (an id that extends it is another
	// execution, I-STORE-4).
	DeleteExecution(ctx context.Context, executionID string) error
}

// SealedLoader is the optional loadLatestSealed (SnapshotStore SPI 1.1.0).
type SealedLoader interface {
	// LoadLatestSealed returns the highest-sequence snapshot saved with Sealed set, or ErrNotFound.
	LoadLatestSealed(ctx context.Context, executionID string) (Snapshot, error)
}

// SeqRange is an inclusive range of sequences.
type SeqRange struct {
	From    int64 `json:"from"`
	Through int64 `json:"through"`
}

// Contains reports whether seq lies in r.
func (r SeqRange) Contains(seq int64) bool { return seq >= r.From && seq <= r.Through }

// SnapshotPruner is the optional pruneSnapshots (SnapshotStore SPI 1.2.0).
type SnapshotPruner interface {
	// PruneSnapshots deletes the execution's snapshots whose sequence lies in r (the caller decided
	// that is safe) and returns the deleted sequences, ascending (I-STORE-17). Recommended
	// (I-STORE-66): an inverted r is ErrInvalidArgument and deletes nothing.
	PruneSnapshots(ctx context.Context, executionID string, r SeqRange) ([]int64, error)
}

// SequenceLister is the optional listSequences (SnapshotStore SPI 1.3.0).
type SequenceLister interface {
	// ListSequences returns the sequences of the stored snapshots, ascending, one per snapshot.
	ListSequences(ctx context.Context, executionID string) ([]int64, error)
}

// SnapshotStoreVersioned is how a SnapshotStore states the SPI version it claims.
type SnapshotStoreVersioned interface {
	SnapshotStoreSpiVersion() string
}
