package spi

import "context"

// ArchiveStore is the compaction-archive seam (spec §7): compaction appends the exact envelopes it
// removes before it truncates. Read, replay and resume never read it.
type ArchiveStore interface {
	// Append stores the envelopes (all of executionID). Re-appending an envelope already archived at
	// that sequence with an equal value is a no-op; with a different value it is ErrConflict and the
	// whole call changes nothing.
	Append(ctx context.Context, executionID string, events []Envelope) error
	// Read returns every archived envelope of the execution, ascending by sequence.
	Read(ctx context.Context, executionID string) ([]Envelope, error)
}

// ArchiveDeleter is the optional ArchiveStore.deleteExecution (SPI 1.1.0).
type ArchiveDeleter interface {
	DeleteExecution(ctx context.Context, executionID string) error
}

// SegmentReplacer is the optional replaceSegments (ArchiveStore SPI 1.1.0).
type SegmentReplacer interface {
	// ReplaceSegments atomically replaces the archived envelopes with sequence in r by events (each of
	// which must lie in r); envelopes outside r are untouched.
	ReplaceSegments(ctx context.Context, executionID string, r SeqRange, events []Envelope) error
}

// ArchiveStoreVersioned is how an ArchiveStore states the SPI version it claims.
type ArchiveStoreVersioned interface {
	ArchiveStoreSpiVersion() string
}
