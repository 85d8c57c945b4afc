package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// BranchRegistry is the PostgreSQL BranchRegistry.
type BranchRegistry struct{ pool *pgxpool.Pool }

// BranchRegistrySpiVersion claims the current BranchRegistry SPI.
func (r *BranchRegistry) BranchRegistrySpiVersion() string { return manifest.BranchRegistrySpiVersion }

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func getBranch(ctx context.Context, q querier, id string) (spi.Branch, error) {
	b := spi.Branch{ID: id}
	var meta *string
	err := q.QueryRow(ctx, `SELECT parent_id, fork_seq, metadata FROM branches WHERE id = $1`, id).Scan(&b.ParentID, &b.ForkSequence, &meta)
	if errors.Is(err, pgx.ErrNoRows) {
		return spi.Branch{}, spi.ErrNotFound
	}
	if meta != nil {
		b.Metadata = []byte(*meta)
	}
	return b, err
}

// Register implements spi.BranchRegistry.
func (r *BranchRegistry) Register(ctx context.Context, b spi.Branch) error {
	if err := spi.ValidateBranch(b); err != nil {
		return err
	}
	return writeTx(ctx, r.pool, func(ctx context.Context, tx pgx.Tx) error {
		// One registration at a time: the cycle test reads ancestors that a racing register could change.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('branches'))`); err != nil {
			return err
		}
		old, err := getBranch(ctx, tx, b.ID)
		switch {
		case err == nil && spi.SameBranch(old, b):
			return nil
		case err == nil:
			return spi.ErrAlreadyExists
		case !errors.Is(err, spi.ErrNotFound):
			return err
		}
		var cycle int
		if err := tx.QueryRow(ctx, `WITH RECURSIVE anc(id) AS (
				SELECT $1::text COLLATE "C" UNION SELECT b.parent_id FROM branches b JOIN anc ON b.id = anc.id)
			SELECT count(*) FROM anc WHERE id = $2`, b.ParentID, b.ID).Scan(&cycle); err != nil {
			return err
		}
		if cycle > 0 {
			return spi.Invalid("register", "parentId", "%q would make a cycle", b.ParentID)
		}
		_, err = tx.Exec(ctx, `INSERT INTO branches (id, parent_id, fork_seq, metadata) VALUES ($1, $2, $3, $4)`,
			b.ID, b.ParentID, b.ForkSequence, nullable(b.Metadata))
		return err
	})
}

// Get implements spi.BranchRegistry.
func (r *BranchRegistry) Get(ctx context.Context, id string) (spi.Branch, error) {
	return getBranch(ctx, r.pool, id)
}

// ListChildren implements spi.BranchRegistry.
func (r *BranchRegistry) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	rows, err := r.pool.Query(ctx, `SELECT id, parent_id, fork_seq, metadata FROM branches WHERE parent_id = $1 ORDER BY id`, parent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []spi.Branch{}
	for rows.Next() {
		var b spi.Branch
		var meta *string
		if err := rows.Scan(&b.ID, &b.ParentID, &b.ForkSequence, &meta); err != nil {
			return nil, err
		}
		if meta != nil {
			b.Metadata = []byte(*meta)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}
