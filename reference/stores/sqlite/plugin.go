package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// ContentStore is the SQLite ContentStore, with the owner argument. It does not seal.
type ContentStore struct{ db *sql.DB }

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
	_, err := s.db.ExecContext(ctx, `INSERT INTO content (owner, digest, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, a.Owner, ref.Digest, data)
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
	err := s.db.QueryRowContext(ctx, `SELECT data FROM content WHERE owner = ? AND digest = ?`, a.Owner, digest).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, spi.ErrNotFound
	}
	if data == nil && err == nil {
		data = []byte{}
	}
	return data, err
}

// PutStreamFor implements spi.OwnedContentStore: the stream is read whole before one insert, so a
// failed or cancelled stream writes nothing.
func (s *ContentStore) PutStreamFor(ctx context.Context, a spi.ContentAccess, r io.Reader) (spi.ContentRef, error) {
	data, err := spi.ReadContent(ctx, r)
	if err != nil {
		return spi.ContentRef{}, err
	}
	return s.PutFor(ctx, a, data)
}

// DurableStateStore is the SQLite DurableStateStore. A deleted key keeps its row (value NULL) so
// its versions are never reused.
type DurableStateStore struct{ db *sql.DB }

// DurableStateStoreSpiVersion claims the current DurableStateStore SPI.
func (s *DurableStateStore) DurableStateStoreSpiVersion() string {
	return manifest.DurableStateStoreSpiVersion
}

// Get implements spi.DurableStateStore.
func (s *DurableStateStore) Get(ctx context.Context, key string) (spi.StateEntry, error) {
	var v sql.NullString
	e := spi.StateEntry{Key: key}
	err := s.db.QueryRowContext(ctx, `SELECT value, version FROM durable_state WHERE key = ?`, key).Scan(&v, &e.Version)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !v.Valid) {
		return spi.StateEntry{}, spi.ErrNotFound
	}
	if err != nil {
		return spi.StateEntry{}, err
	}
	e.Value = json.RawMessage(v.String)
	return e, nil
}

// current reads the key's live version (0 when absent or deleted) and its last version.
func current(ctx context.Context, tx *sql.Tx, key string) (live, last int64, err error) {
	var v sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT value, version FROM durable_state WHERE key = ?`, key).Scan(&v, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	if v.Valid {
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
	err := inTx(ctx, s.db, func(tx *sql.Tx) error {
		live, last, err := current(ctx, tx, key)
		if err != nil {
			return err
		}
		if !pre.Holds(live) {
			return spi.StateConflict(key, pre, live)
		}
		next = last + 1
		_, err = tx.ExecContext(ctx, `INSERT INTO durable_state (key, value, version) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = excluded.version`, key, string(value), next)
		return err
	})
	return next, err
}

// Delete implements spi.DurableStateStore.
func (s *DurableStateStore) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	if err := spi.ValidateStateWrite("delete", key, nil, pre, false); err != nil {
		return err
	}
	return inTx(ctx, s.db, func(tx *sql.Tx) error {
		live, _, err := current(ctx, tx, key)
		if err != nil {
			return err
		}
		if !pre.Holds(live) {
			return spi.StateConflict(key, pre, live)
		}
		_, err = tx.ExecContext(ctx, `UPDATE durable_state SET value = NULL WHERE key = ?`, key)
		return err
	})
}

// ReadModelStore is the SQLite ReadModelStore.
type ReadModelStore struct{ db *sql.DB }

// ReadModelStoreSpiVersion claims the current ReadModelStore SPI.
func (s *ReadModelStore) ReadModelStoreSpiVersion() string { return manifest.ReadModelStoreSpiVersion }

// Upsert implements spi.ReadModelStore.
func (s *ReadModelStore) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if err := spi.ValidateUpsert(model, id, doc); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO read_models (model, id, doc) VALUES (?, ?, ?)
		ON CONFLICT (model, id) DO UPDATE SET doc = excluded.doc`, model, id, string(doc))
	return err
}

// Query implements spi.ReadModelStore: a keyset page, one row more than the limit to learn whether
// another page follows.
func (s *ReadModelStore) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, doc FROM read_models WHERE model = ? AND id > ? ORDER BY id LIMIT ?`, model, after, q.Limit+1)
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
