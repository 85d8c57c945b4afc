package spi

import "context"

// ArchiveStore is the compaction-archive seam (spec §7): compaction appends the exact envelopes it
// removes before it truncates. Read, replay and resume never read it.
type ArchiveStore interface {
	// Append stores the envelopes (all of executionID) value-exact, one per sequence. A different
	// envelope at an archived sequence is ErrConflict and the whole call changes nothing (I-STORE-18,
	// I-STORE-30). Recommended: re-archiving an equal envelope (by JSON value) succeeds and changes
	// nothing (I-STORE-70, I-STORE-29), and the sequences of one call are strictly increasing, a
	// repeated or out-of-order one ErrInvalidArgument (I-STORE-53).
	Append(ctx context.Context, executionID string, events []Envelope) error
	// Read returns every archived envelope of the execution, ascending by sequence.
	Read(ctx context.Context, executionID string) ([]Envelope, error)
}

// ArchiveDeleter is the optional ArchiveStore.deleteExecution (SPI 1.1.0).
type ArchiveDeleter interface {
	// DeleteExecution removes that execution's archive only (an id that extends it is another
	// execution, I-STORE-4).
	DeleteExecution(ctx context.Context, executionID string) error
}

// SegmentReplacer is the optional replaceSegments (ArchiveStore SPI 1.1.0).
type SegmentReplacer interface {
	// ReplaceSegments atomically replaces the archived envelopes with sequence in r by events (each of
	// which must lie in r, ErrInvalidArgument otherwise, changing nothing); envelopes outside r are
	// untouched, and a new envelope replaces the old one whole (I-STORE-19, I-STORE-30, I-STORE-32).
	ReplaceSegments(ctx context.Context, executionID string, r SeqRange, events []Envelope) error
}

// ArchiveStoreVersioned is how an ArchiveStore states the SPI version it claims.
type ArchiveStoreVersioned interface {
	ArchiveStoreSpiVersion() string
}
