package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// ContentStore is the PostgreSQL ContentStore, with the owner argument. It does not seal.
type ContentStore struct{ pool *pgxpool.Pool }

// ContentStoreSpiVersion claims the current ContentStore SPI.
func (s *ContentStore) ContentStoreSpiVersion() string { return manifest.ContentStoreSpiVersion }

// Put implements spi.ContentStore.
func (s *ContentStore) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	return s.PutFor(ctx, spi.ContentAccess{}, data)
}

// Get implements spi.ContentStore.
func (s *ContentStore) Get(ctx context.Context, digest string) ([]byte, error) {
	return s.GetFor(ctx, spi.ContentAccess{}, digest)
}

// PutStream implements spi.ContentStore.
func (s *ContentStore) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return s.PutStreamFor(ctx, spi.ContentAccess{}, r)
}

// PutFor implements spi.OwnedContentStore.
func (s *ContentStore) PutFor(ctx context.Context, a spi.ContentAccess, data []byte) (spi.ContentRef, error) {
	ref := spi.RefOf(data)
	if data == nil {
		data = []byte{}
	}
	err := writeExec(ctx, s.pool, `INSERT INTO content (owner, digest, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, a.Owner, ref.Digest, data)
	if err != nil {
		return spi.ContentRef{}, err
	}
	return ref, nil
}

// GetFor implements spi.OwnedContentStore.
func (s *ContentStore) GetFor(ctx context.Context, a spi.ContentAccess, digest string) ([]byte, error) {
	if err := spi.ValidateDigest("get", digest); err != nil {
		return nil, err
	}
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT data FROM content WHERE owner = $1 AND digest = $2`, a.Owner, digest).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, spi.ErrNotFound
	}
	if data == nil && err == nil {
		data = []byte{}
	}
	return data, err
}

// PutStreamFor implements spi.OwnedContentStore: the stream is read whole before one detached
// insert, so a failed or cancelled stream writes nothing and a started insert is the one outcome.
func (s *ContentStore) PutStreamFor(ctx context.Context, a spi.ContentAccess, r io.Reader) (spi.ContentRef, error) {
	data, err := spi.ReadContent(ctx, r)
	if err != nil {
		return spi.ContentRef{}, err
	}
	return s.PutFor(ctx, a, data)
}

// DurableStateStore is the PostgreSQL DurableStateStore. A deleted key keeps its row (value NULL)
// so its versions are never reused.
type DurableStateStore struct{ pool *pgxpool.Pool }

// DurableStateStoreSpiVersion claims the current DurableStateStore SPI.
func (s *DurableStateStore) DurableStateStoreSpiVersion() string {
	return manifest.DurableStateStoreSpiVersion
}

// Get implements spi.DurableStateStore.
func (s *DurableStateStore) Get(ctx context.Context, key string) (spi.StateEntry, error) {
	var v *string
	e := spi.StateEntry{Key: key}
	err := s.pool.QueryRow(ctx, `SELECT value, version FROM durable_state WHERE key = $1`, key).Scan(&v, &e.Version)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && v == nil) {
		return spi.StateEntry{}, spi.ErrNotFound
	}
	if err != nil {
		return spi.StateEntry{}, err
	}
	e.Value = json.RawMessage(*v)
	return e, nil
}

// lockCurrent locks the key's row and returns its live version (0 when absent or deleted) and its
// last version. An absent key gets a tombstone row first, so racing writers of a new key also
// serialise on one row lock.
func lockCurrent(ctx context.Context, tx pgx.Tx, key string) (live, last int64, err error) {
	var v *string
	err = tx.QueryRow(ctx, `SELECT value, version FROM durable_state WHERE key = $1 FOR UPDATE`, key).Scan(&v, &last)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, err := tx.Exec(ctx, `INSERT INTO durable_state (key, value, version) VALUES ($1, NULL, 0) ON CONFLICT DO NOTHING`, key); err != nil {
			return 0, 0, err
		}
		err = tx.QueryRow(ctx, `SELECT value, version FROM durable_state WHERE key = $1 FOR UPDATE`, key).Scan(&v, &last)
	}
	if err != nil {
		return 0, 0, err
	}
	if v != nil {
		live = last
	}
	return live, last, nil
}

// Set implements spi.DurableStateStore.
func (s *DurableStateStore) Set(ctx context.Context, key string, value json.RawMessage, pre spi.Precondition) (int64, error) {
	if err := spi.ValidateStateWrite("set", key, value, pre, true); err != nil {
		return 0, err
	}
	var next int64
	err := writeTx(ctx, s.pool, func(ctx context.Context, tx pgx.Tx) error {
		live, last, err := lockCurrent(ctx, tx, key)
		if err != nil {
			return err
		}
		if !pre.Holds(live) {
			return spi.StateConflict(key, pre, live)
		}
		next = last + 1
		_, err = tx.Exec(ctx, `UPDATE durable_state SET value = $2, version = $3 WHERE key = $1`, key, string(value), next)
		return err
	})
	return next, err
}

// Delete implements spi.DurableStateStore.
func (s *DurableStateStore) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	if err := spi.ValidateStateWrite("delete", key, nil, pre, false); err != nil {
		return err
	}
	return writeTx(ctx, s.pool, func(ctx context.Context, tx pgx.Tx) error {
		live, _, err := lockCurrent(ctx, tx, key)
		if err != nil {
			return err
		}
		if !pre.Holds(live) {
			return spi.StateConflict(key, pre, live)
		}
		_, err = tx.Exec(ctx, `UPDATE durable_state SET value = NULL WHERE key = $1`, key)
		return err
	})
}

// ReadModelStore is the PostgreSQL ReadModelStore.
type ReadModelStore struct{ pool *pgxpool.Pool }

// ReadModelStoreSpiVersion claims the current ReadModelStore SPI.
func (s *ReadModelStore) ReadModelStoreSpiVersion() string { return manifest.ReadModelStoreSpiVersion }

// Upsert implements spi.ReadModelStore.
func (s *ReadModelStore) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if err := spi.ValidateUpsert(model, id, doc); err != nil {
		return err
	}
	return writeExec(ctx, s.pool, `INSERT INTO read_models (model, id, doc) VALUES ($1, $2, $3)
		ON CONFLICT (model, id) DO UPDATE SET doc = excluded.doc`, model, id, string(doc))
}

// Query implements spi.ReadModelStore: a keyset page, one row more than the limit to learn whether
// another page follows.
func (s *ReadModelStore) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, doc FROM read_models WHERE model = $1 AND id > $2 ORDER BY id LIMIT $3`, model, after, q.Limit+1)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	defer rows.Close()
	page := spi.ReadModelPage{Docs: []spi.ReadModelDoc{}}
	for rows.Next() {
		var d spi.ReadModelDoc
		var doc string
		if err := rows.Scan(&d.ID, &doc); err != nil {
			return spi.ReadModelPage{}, err
		}
		if len(page.Docs) == q.Limit {
			page.NextCursor = spi.EncodeCursor(model, page.Docs[len(page.Docs)-1].ID)
			break
		}
		d.Doc = json.RawMessage(doc)
		page.Docs = append(page.Docs, d)
	}
	return page, rows.Err()
}
