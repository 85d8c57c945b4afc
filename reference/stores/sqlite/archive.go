package sqlite

import (
	"context"
	"database/sql"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// ArchiveStore is the SQLite ArchiveStore.
type ArchiveStore struct{ db *sql.DB }

// ArchiveStoreSpiVersion claims the current ArchiveStore SPI.
func (s *ArchiveStore) ArchiveStoreSpiVersion() string { return manifest.ArchiveStoreSpiVersion }

const insertArchive = `INSERT INTO archive (execution_id, seq, id, workflow_id, event_type, ts, payload, metadata) VALUES `

func archivedAt(ctx context.Context, tx *sql.Tx, id string, seq int64) (spi.Envelope, bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT execution_id, seq, id, workflow_id, event_type, ts, payload, metadata
		FROM archive WHERE execution_id = ? AND seq = ?`, id, seq)
	if err != nil {
		return spi.Envelope{}, false, err
	}
	envs, err := scanEnvelopes(rows)
	if err != nil || len(envs) == 0 {
		return spi.Envelope{}, false, err
	}
	return envs[0], true, nil
}

// Append implements spi.ArchiveStore.
func (s *ArchiveStore) Append(ctx context.Context, id string, events []spi.Envelope) error {
	if err := spi.ValidateArchiveBatch("append", id, events); err != nil {
		return err
	}
	return inTx(ctx, s.db, func(tx *sql.Tx) error {
		var fresh []spi.Envelope
		for _, e := range events {
			old, ok, err := archivedAt(ctx, tx, id, e.Sequence)
			if err != nil {
				return err
			}
			if ok && !spi.SameEnvelope(old, e) {
				return &spi.ConflictError{ExecutionID: id, Expected: e.Sequence, Actual: -1,
					Reason: "a different envelope is already archived at that sequence"}
			}
			if !ok {
				fresh = append(fresh, e)
			}
		}
		return insertEnvelopes(ctx, tx, insertArchive, fresh)
	})
}

// Read implements spi.ArchiveStore.
func (s *ArchiveStore) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT execution_id, seq, id, workflow_id, event_type, ts, payload, metadata
		FROM archive WHERE execution_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	return scanEnvelopes(rows)
}

// DeleteExecution implements spi.ArchiveDeleter.
func (s *ArchiveStore) DeleteExecution(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM archive WHERE execution_id = ?`, id)
	return err
}

// ReplaceSegments implements spi.SegmentReplacer.
func (s *ArchiveStore) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	if err := spi.ValidateReplace(id, r, events); err != nil {
		return err
	}
	return inTx(ctx, s.db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM archive WHERE execution_id = ? AND seq >= ? AND seq <= ?`, id, r.From, r.Through); err != nil {
			return err
		}
		return insertEnvelopes(ctx, tx, insertArchive, events)
	})
}
