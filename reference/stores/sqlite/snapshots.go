package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// SnapshotStore is the SQLite SnapshotStore.
type SnapshotStore struct{ db *sql.DB }

// SnapshotStoreSpiVersion claims the current SnapshotStore SPI.
func (s *SnapshotStore) SnapshotStoreSpiVersion() string { return manifest.SnapshotStoreSpiVersion }

// Save implements spi.SnapshotStore.
func (s *SnapshotStore) Save(ctx context.Context, snap spi.Snapshot) error {
	if err := spi.ValidateSnapshot(snap); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO snapshots (execution_id, seq, state, sealed) VALUES (?, ?, ?, ?)
		 ON CONFLICT (execution_id, seq) DO UPDATE SET state = excluded.state, sealed = excluded.sealed`,
		snap.ExecutionID, snap.Sequence, string(snap.State), snap.Sealed)
	return err
}

func (s *SnapshotStore) latest(ctx context.Context, id string, sealedOnly bool) (spi.Snapshot, error) {
	q := `SELECT seq, state, sealed FROM snapshots WHERE execution_id = ? ORDER BY seq DESC LIMIT 1`
	if sealedOnly {
		q = `SELECT seq, state, sealed FROM snapshots WHERE execution_id = ? AND sealed <> 0 ORDER BY seq DESC LIMIT 1`
	}
	sn := spi.Snapshot{ExecutionID: id}
	var state string
	err := s.db.QueryRowContext(ctx, q, id).Scan(&sn.Sequence, &state, &sn.Sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return spi.Snapshot{}, spi.ErrNotFound
	}
	sn.State = []byte(state)
	return sn, err
}

// LoadLatest implements spi.SnapshotStore.
func (s *SnapshotStore) LoadLatest(ctx context.Context, id string) (spi.Snapshot, error) {
	return s.latest(ctx, id, false)
}

// LoadLatestSealed implements spi.SealedLoader.
func (s *SnapshotStore) LoadLatestSealed(ctx context.Context, id string) (spi.Snapshot, error) {
	return s.latest(ctx, id, true)
}

// DeleteExecution implements spi.SnapshotDeleter.
func (s *SnapshotStore) DeleteExecution(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM snapshots WHERE execution_id = ?`, id)
	return err
}

// PruneSnapshots implements spi.SnapshotPruner.
func (s *SnapshotStore) PruneSnapshots(ctx context.Context, id string, r spi.SeqRange) ([]int64, error) {
	if r.From > r.Through {
		return nil, spi.Invalid("pruneSnapshots", "range", "from %d is after through %d", r.From, r.Through)
	}
	rows, err := s.db.QueryContext(ctx,
		`DELETE FROM snapshots WHERE execution_id = ? AND seq >= ? AND seq <= ? RETURNING seq`, id, r.From, r.Through)
	if err != nil {
		return nil, err
	}
	out, err := scanSeqs(rows)
	sortInt64(out)
	return out, err
}

// ListSequences implements spi.SequenceLister.
func (s *SnapshotStore) ListSequences(ctx context.Context, id string) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq FROM snapshots WHERE execution_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	return scanSeqs(rows)
}

func scanSeqs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func sortInt64(xs []int64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
