package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// BranchRegistry is the SQLite BranchRegistry.
type BranchRegistry struct{ db *sql.DB }

// BranchRegistrySpiVersion claims the current BranchRegistry SPI.
func (r *BranchRegistry) BranchRegistrySpiVersion() string { return manifest.BranchRegistrySpiVersion }

func getBranch(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string) (spi.Branch, error) {
	b := spi.Branch{ID: id}
	var meta sql.NullString
	err := q.QueryRowContext(ctx, `SELECT parent_id, fork_seq, metadata FROM branches WHERE id = ?`, id).Scan(&b.ParentID, &b.ForkSequence, &meta)
	if errors.Is(err, sql.ErrNoRows) {
		return spi.Branch{}, spi.ErrNotFound
	}
	if meta.Valid {
		b.Metadata = []byte(meta.String)
	}
	return b, err
}

// Register implements spi.BranchRegistry.
func (r *BranchRegistry) Register(ctx context.Context, b spi.Branch) error {
	if err := spi.ValidateBranch(b); err != nil {
		return err
	}
	return inTx(ctx, r.db, func(tx *sql.Tx) error {
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
		if err := tx.QueryRowContext(ctx, `WITH RECURSIVE anc(id) AS (
				SELECT ? UNION SELECT b.parent_id FROM branches b JOIN anc ON b.id = anc.id)
			SELECT count(*) FROM anc WHERE id = ?`, b.ParentID, b.ID).Scan(&cycle); err != nil {
			return err
		}
		if cycle > 0 {
			return spi.Invalid("register", "parentId", "%q would make a cycle", b.ParentID)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO branches (id, parent_id, fork_seq, metadata) VALUES (?, ?, ?, ?)`,
			b.ID, b.ParentID, b.ForkSequence, nullable(b.Metadata))
		return err
	})
}

// Get implements spi.BranchRegistry.
func (r *BranchRegistry) Get(ctx context.Context, id string) (spi.Branch, error) {
	return getBranch(ctx, r.db, id)
}

// ListChildren implements spi.BranchRegistry.
func (r *BranchRegistry) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT id, parent_id, fork_seq, metadata FROM branches WHERE parent_id = ? ORDER BY id`, parent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []spi.Branch{}
	for rows.Next() {
		var b spi.Branch
		var meta sql.NullString
		if err := rows.Scan(&b.ID, &b.ParentID, &b.ForkSequence, &meta); err != nil {
			return nil, err
		}
		if meta.Valid {
			b.Metadata = []byte(meta.String)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}
