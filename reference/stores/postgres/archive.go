package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// ArchiveStore is the PostgreSQL ArchiveStore.
type ArchiveStore struct{ pool *pgxpool.Pool }

// ArchiveStoreSpiVersion claims the current ArchiveStore SPI.
func (s *ArchiveStore) ArchiveStoreSpiVersion() string { return manifest.ArchiveStoreSpiVersion }

const archiveCols = `execution_id, seq, id, workflow_id, event_type, ts, payload, metadata`

// Append implements spi.ArchiveStore.
func (s *ArchiveStore) Append(ctx context.Context, id string, events []spi.Envelope) error {
	if err := spi.ValidateArchiveBatch("append", id, events); err != nil {
		return err
	}
	if len(events) == 0 {
		return ctx.Err()
	}
	return writeTx(ctx, s.pool, func(ctx context.Context, tx pgx.Tx) error {
		// Serialise archivers of one execution so the compare-then-insert below is atomic.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('archive:' || $1))`, id); err != nil {
			return err
		}
		seqs := make([]int64, len(events))
		for i, e := range events {
			seqs[i] = e.Sequence
		}
		rows, err := tx.Query(ctx, `SELECT `+archiveCols+` FROM archive WHERE execution_id = $1 AND seq = ANY($2) ORDER BY seq`, id, seqs)
		if err != nil {
			return err
		}
		old, err := scanEnvelopes(rows)
		if err != nil {
			return err
		}
		have := map[int64]spi.Envelope{}
		for _, e := range old {
			have[e.Sequence] = e
		}
		var fresh []spi.Envelope
		for _, e := range events {
			if o, ok := have[e.Sequence]; ok {
				if !spi.SameEnvelope(o, e) {
					return &spi.ConflictError{ExecutionID: id, Expected: e.Sequence, Actual: -1,
						Reason: "a different envelope is already archived at that sequence"}
				}
				continue
			}
			fresh = append(fresh, e)
		}
		if len(fresh) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `INSERT INTO archive `+unnestCols, columns(fresh)...)
		return err
	})
}

// Read implements spi.ArchiveStore.
func (s *ArchiveStore) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+archiveCols+` FROM archive WHERE execution_id = $1 ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	return scanEnvelopes(rows)
}

// DeleteExecution implements spi.ArchiveDeleter.
func (s *ArchiveStore) DeleteExecution(ctx context.Context, id string) error {
	err := writeExec(ctx, s.pool, `DELETE FROM archive WHERE execution_id = $1`, id)
	return err
}

// ReplaceSegments implements spi.SegmentReplacer.
func (s *ArchiveStore) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	if err := spi.ValidateReplace(id, r, events); err != nil {
		return err
	}
	return writeTx(ctx, s.pool, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('archive:' || $1))`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM archive WHERE execution_id = $1 AND seq BETWEEN $2 AND $3`, id, r.From, r.Through); err != nil {
			return err
		}
		if len(events) == 0 {
			return nil
		}
		_, err := tx.Exec(ctx, `INSERT INTO archive `+unnestCols, columns(events)...)
		return err
	})
}
