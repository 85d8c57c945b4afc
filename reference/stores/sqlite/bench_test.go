package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/sqlite"
	"github.com/loom-kernel/loom-conform/spi"
)

// pair times store and raw alternately in chunks of one run and reports both and their throughput
// ratio (raw time / store time: 1.0 means the store is as fast as the bare driver).
func pair(b *testing.B, store, raw func(i int) error) {
	b.Helper()
	var ts, tr time.Duration
	const chunk = 8
	b.ResetTimer()
	for i := 0; i < b.N; i += chunk {
		n := min(chunk, b.N-i)
		t0 := time.Now()
		for j := 0; j < n; j++ {
			if err := store(i + j); err != nil {
				b.Fatal(err)
			}
		}
		t1 := time.Now()
		for j := 0; j < n; j++ {
			if err := raw(i + j); err != nil {
				b.Fatal(err)
			}
		}
		ts += t1.Sub(t0)
		tr += time.Since(t1)
	}
	b.ReportMetric(float64(ts.Nanoseconds())/float64(b.N), "store-ns/op")
	b.ReportMetric(float64(tr.Nanoseconds())/float64(b.N), "raw-ns/op")
	b.ReportMetric(float64(tr)/float64(ts), "store/raw")
}

func envs(x string, from int64, n int) []spi.Envelope {
	out := make([]spi.Envelope, n)
	for i := range out {
		s := from + int64(i)
		out[i] = spi.Envelope{ID: fmt.Sprintf("%s-%d", x, s), WorkflowID: "wf", ExecutionID: x, EventType: "STEP_COMPLETED",
			Sequence: s, Timestamp: 1_700_000_000_000 + s, Payload: []byte(`{"stepId":"s1","output":{"v":42,"text":"hello"}}`)}
	}
	return out
}

func benchDB(b *testing.B) (*sqlite.DB, *sql.DB) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	raw := db.SQL()
	if _, err := raw.Exec(`CREATE TABLE raw_events (execution_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
		workflow_id TEXT NOT NULL, event_type TEXT NOT NULL, ts INTEGER NOT NULL, payload TEXT NOT NULL, metadata TEXT,
		PRIMARY KEY (execution_id, seq)) WITHOUT ROWID`); err != nil {
		b.Fatal(err)
	}
	return db, raw
}

// rawInsert is what a bare driver does for the same batch: one transaction, one multi-row insert.
func rawInsert(ctx context.Context, raw *sql.DB, events []spi.Envelope) error {
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO raw_events (execution_id, seq, id, workflow_id, event_type, ts, payload, metadata) VALUES `)
	args := make([]any, 0, 8*len(events))
	for i, e := range events {
		if i > 0 {
			q.WriteString(",")
		}
		q.WriteString("(?,?,?,?,?,?,?,?)")
		args = append(args, e.ExecutionID, e.Sequence, e.ID, e.WorkflowID, e.EventType, e.Timestamp, string(e.Payload), nil)
	}
	if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func benchAppend(b *testing.B, size int) {
	ctx := context.Background()
	db, raw := benchDB(b)
	es := db.Events()
	pair(b, func(i int) error {
		return es.Append(ctx, "bench", envs("bench", int64(i*size), size), spi.AppendOptions{})
	}, func(i int) error {
		return rawInsert(ctx, raw, envs("bench", int64(i*size), size))
	})
	b.ReportMetric(float64(size), "events/op")
}

func BenchmarkAppendSingle(b *testing.B)   { benchAppend(b, 1) }
func BenchmarkAppendBatch100(b *testing.B) { benchAppend(b, 100) }

func BenchmarkRead100(b *testing.B) {
	ctx := context.Background()
	db, raw := benchDB(b)
	es := db.Events()
	if err := es.Append(ctx, "r", envs("r", 0, 100), spi.AppendOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := rawInsert(ctx, raw, envs("r", 0, 100)); err != nil {
		b.Fatal(err)
	}
	pair(b, func(int) error {
		got, err := es.Read(ctx, "r")
		if err == nil && len(got) != 100 {
			err = fmt.Errorf("read %d", len(got))
		}
		return err
	}, func(int) error {
		rows, err := raw.QueryContext(ctx, `SELECT execution_id, seq, id, workflow_id, event_type, ts, payload, metadata
			FROM raw_events WHERE execution_id = ? ORDER BY seq`, "r")
		if err != nil {
			return err
		}
		defer rows.Close()
		var out []spi.Envelope
		for rows.Next() {
			var e spi.Envelope
			var p string
			var m sql.NullString
			if err := rows.Scan(&e.ExecutionID, &e.Sequence, &e.ID, &e.WorkflowID, &e.EventType, &e.Timestamp, &p, &m); err != nil {
				return err
			}
			e.Payload = []byte(p)
			out = append(out, e)
		}
		return rows.Err()
	})
}

// BenchmarkEventStoreKit is the wall time of the whole EventStore kit on SQLite (target 15 s).
func BenchmarkEventStoreKit(b *testing.B) {
	dir := b.TempDir()
	n := 0
	factory := func(ctx context.Context) (spi.EventStore, func(), error) {
		n++
		db, err := sqlite.Open(ctx, filepath.Join(dir, fmt.Sprintf("k%d.db", n)))
		if err != nil {
			return nil, nil, err
		}
		return db.EventsWithClock(time.Now), func() { db.Close() }, nil
	}
	for i := 0; i < b.N; i++ {
		start := time.Now()
		results, err := kits.Run(context.Background(), kits.EventStoreKit(), factory, kits.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if err := kits.Errors(results); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "kit-s")
	}
}
