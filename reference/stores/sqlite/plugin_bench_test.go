package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/loom-kernel/loom-conform/spi"
)

// The plugin-tier stores against the bare driver doing the same work in the same run (store/raw
// is raw time over store time; the target is >= 0.7).

func rawPluginTables(b *testing.B, raw *sql.DB) {
	for _, q := range []string{
		`CREATE TABLE raw_content (owner TEXT NOT NULL, digest TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (owner, digest)) WITHOUT ROWID`,
		`CREATE TABLE raw_state (key TEXT PRIMARY KEY, value TEXT, version INTEGER NOT NULL) WITHOUT ROWID`,
		`CREATE TABLE raw_models (model TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (model, id)) WITHOUT ROWID`,
	} {
		if _, err := raw.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkContentPut4K(b *testing.B) {
	ctx := context.Background()
	db, raw := benchDB(b)
	rawPluginTables(b, raw)
	cs := db.Content()
	blob := func(tag string, i int) []byte {
		d := make([]byte, 4096)
		copy(d, fmt.Sprintf("%s-%d", tag, i))
		return d
	}
	pair(b, func(i int) error {
		_, err := cs.Put(ctx, blob("s", i))
		return err
	}, func(i int) error {
		d := blob("r", i)
		_, err := raw.ExecContext(ctx, `INSERT INTO raw_content (owner, digest, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, "", spi.DigestOf(d), d)
		return err
	})
}

func BenchmarkStateCompareAndSet(b *testing.B) {
	ctx := context.Background()
	db, raw := benchDB(b)
	rawPluginTables(b, raw)
	ds := db.DurableState()
	var ver int64
	pair(b, func(i int) error {
		v, err := ds.Set(ctx, "counter", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), spi.IfVersion(ver))
		ver = v
		return err
	}, func(i int) error {
		// the same read-check-write in one transaction, without the store's validation
		tx, err := raw.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		var v int64
		err = tx.QueryRowContext(ctx, `SELECT version FROM raw_state WHERE key = ?`, "counter").Scan(&v)
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO raw_state (key, value, version) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = excluded.version`, "counter", fmt.Sprintf(`{"n":%d}`, i), v+1); err != nil {
			return err
		}
		return tx.Commit()
	})
}

func BenchmarkReadModelQuery100(b *testing.B) {
	ctx := context.Background()
	db, raw := benchDB(b)
	rawPluginTables(b, raw)
	rm := db.ReadModels()
	for i := 0; i < 1000; i++ {
		id, doc := fmt.Sprintf("id-%05d", i), fmt.Sprintf(`{"customer":"c-%d","total":%d}`, i%17, i)
		if err := rm.Upsert(ctx, "orders", id, json.RawMessage(doc)); err != nil {
			b.Fatal(err)
		}
		if _, err := raw.Exec(`INSERT INTO raw_models (model, id, doc) VALUES (?, ?, ?)`, "orders", id, doc); err != nil {
			b.Fatal(err)
		}
	}
	after := func(i int) string { return fmt.Sprintf("id-%05d", (i*100)%900) }
	pair(b, func(i int) error {
		q := spi.ReadModelQuery{Limit: 100}
		if i%9 != 0 {
			q.Cursor = spi.EncodeCursor("orders", after(i))
		}
		p, err := rm.Query(ctx, "orders", q)
		if err == nil && len(p.Docs) != 100 {
			err = fmt.Errorf("page of %d", len(p.Docs))
		}
		return err
	}, func(i int) error {
		a := ""
		if i%9 != 0 {
			a = after(i)
		}
		rows, err := raw.QueryContext(ctx, `SELECT id, doc FROM raw_models WHERE model = ? AND id > ? ORDER BY id LIMIT ?`, "orders", a, 101)
		if err != nil {
			return err
		}
		defer rows.Close()
		var docs []spi.ReadModelDoc
		for rows.Next() {
			var d spi.ReadModelDoc
			var doc string
			if err := rows.Scan(&d.ID, &doc); err != nil {
				return err
			}
			d.Doc = json.RawMessage(doc)
			docs = append(docs, d)
		}
		return rows.Err()
	})
}
