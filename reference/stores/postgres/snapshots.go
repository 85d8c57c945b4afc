package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// SnapshotStore is the PostgreSQL SnapshotStore.
type SnapshotStore struct{ pool *pgxpool.Pool }

// SnapshotStoreSpiVersion claims the current SnapshotStore SPI.
func (s *SnapshotStore) SnapshotStoreSpiVersion() string { return manifest.SnapshotStoreSpiVersion }

// Save implements spi.SnapshotStore.
func (s *SnapshotStore) Save(ctx context.Context, snap spi.Snapshot) error {
	if err := spi.ValidateSnapshot(snap); err != nil {
		return err
	}
	err := writeExec(ctx, s.pool, `INSERT INTO snapshots (execution_id, seq, state, sealed) VALUES ($1, $2, $3, $4)
		ON CONFLICT (execution_id, seq) DO UPDATE SET state = EXCLUDED.state, sealed = EXCLUDED.sealed`,
		snap.ExecutionID, snap.Sequence, string(snap.State), snap.Sealed)
	return err
}

func (s *SnapshotStore) latest(ctx context.Context, id string, sealedOnly bool) (spi.Snapshot, error) {
	sn := spi.Snapshot{ExecutionID: id}
	var state string
	err := s.pool.QueryRow(ctx, `SELECT seq, state, sealed FROM snapshots
		WHERE execution_id = $1 AND (sealed OR NOT $2) ORDER BY seq DESC LIMIT 1`, id, sealedOnly).Scan(&sn.Sequence, &state, &sn.Sealed)
	if errors.Is(err, pgx.ErrNoRows) {
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
	err := writeExec(ctx, s.pool, `DELETE FROM snapshots WHERE execution_id = $1`, id)
	return err
}

// PruneSnapshots implements spi.SnapshotPruner.
func (s *SnapshotStore) PruneSnapshots(ctx context.Context, id string, r spi.SeqRange) ([]int64, error) {
	if r.From > r.Through {
		return nil, spi.Invalid("pruneSnapshots", "range", "from %d is after through %d", r.From, r.Through)
	}
	w, cancel, err := detach(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rows, err := s.pool.Query(w, `WITH d AS (DELETE FROM snapshots WHERE execution_id = $1 AND seq BETWEEN $2 AND $3 RETURNING seq)
		SELECT seq FROM d ORDER BY seq`, id, r.From, r.Through)
	if err != nil {
		return nil, err
	}
	return collectSeqs(rows)
}

// ListSequences implements spi.SequenceLister.
func (s *SnapshotStore) ListSequences(ctx context.Context, id string) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT seq FROM snapshots WHERE execution_id = $1 ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	return collectSeqs(rows)
}

func collectSeqs(rows pgx.Rows) ([]int64, error) {
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if out == nil {
		out = []int64{}
	}
	return out, err
}
