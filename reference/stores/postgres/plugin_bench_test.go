package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/loom-kernel/loom-conform/spi"
)

// The plugin-tier stores against the bare driver doing the same work in the same run (store/raw
// is raw time over store time; the target is >= 0.7).

func rawPluginTables(b *testing.B, ctx context.Context, exec func(context.Context, string) error) {
	for _, q := range []string{
		`CREATE TABLE raw_content (LIKE content INCLUDING ALL)`,
		`CREATE TABLE raw_state (LIKE durable_state INCLUDING ALL)`,
		`CREATE TABLE raw_models (LIKE read_models INCLUDING ALL)`,
	} {
		if err := exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkContentPut4K(b *testing.B) {
	ctx := context.Background()
	db := benchDB(b)
	pool := db.Pool()
	rawPluginTables(b, ctx, func(ctx context.Context, q string) error { _, err := pool.Exec(ctx, q); return err })
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
		_, err := pool.Exec(ctx, `INSERT INTO raw_content (owner, digest, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, "", spi.DigestOf(d), d)
		return err
	})
}

func BenchmarkStateCompareAndSet(b *testing.B) {
	ctx := context.Background()
	db := benchDB(b)
	pool := db.Pool()
	rawPluginTables(b, ctx, func(ctx context.Context, q string) error { _, err := pool.Exec(ctx, q); return err })
	ds := db.DurableState()
	var ver int64
	pair(b, func(i int) error {
		v, err := ds.Set(ctx, "counter", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), spi.IfVersion(ver))
		ver = v
		return err
	}, func(i int) error {
		// the same locked read-check-write in one transaction, without the store's validation
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			var v int64
			err := tx.QueryRow(ctx, `SELECT version FROM raw_state WHERE key = $1 FOR UPDATE`, "counter").Scan(&v)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO raw_state (key, value, version) VALUES ($1, $2, $3)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = excluded.version`, "counter", fmt.Sprintf(`{"n":%d}`, i), v+1)
			return err
		})
	})
}

func BenchmarkReadModelQuery100(b *testing.B) {
	ctx := context.Background()
	db := benchDB(b)
	pool := db.Pool()
	rawPluginTables(b, ctx, func(ctx context.Context, q string) error { _, err := pool.Exec(ctx, q); return err })
	rm := db.ReadModels()
	for i := 0; i < 1000; i++ {
		id, doc := fmt.Sprintf("id-%05d", i), fmt.Sprintf(`{"customer":"c-%d","total":%d}`, i%17, i)
		if err := rm.Upsert(ctx, "orders", id, json.RawMessage(doc)); err != nil {
			b.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO raw_models (model, id, doc) VALUES ($1, $2, $3)`, "orders", id, doc); err != nil {
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
		rows, err := pool.Query(ctx, `SELECT id, doc FROM raw_models WHERE model = $1 AND id > $2 ORDER BY id LIMIT $3`, "orders", a, 101)
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
