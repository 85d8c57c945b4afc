package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/postgres"
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

func benchDB(b *testing.B) *postgres.DB {
	db, cleanup, err := postgres.OpenTemp(context.Background(), postgres.TestDSN(b), "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cleanup)
	if _, err := db.Pool().Exec(context.Background(), `CREATE TABLE raw_events (LIKE events INCLUDING ALL)`); err != nil {
		b.Fatal(err)
	}
	return db
}

// rawInsert is what the bare driver does for the same batch: one multi-row INSERT (autocommit).
func rawInsert(ctx context.Context, db *postgres.DB, events []spi.Envelope) error {
	n := len(events)
	ex, ids, wf, typ, pay := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	seq, ts := make([]int64, n), make([]int64, n)
	meta := make([]*string, n)
	for i, e := range events {
		ex[i], seq[i], ids[i], wf[i], typ[i], ts[i], pay[i] = e.ExecutionID, e.Sequence, e.ID, e.WorkflowID, e.EventType, e.Timestamp, string(e.Payload)
	}
	_, err := db.Pool().Exec(ctx, `INSERT INTO raw_events (execution_id, seq, id, workflow_id, event_type, ts, payload, metadata)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[])`,
		ex, seq, ids, wf, typ, ts, pay, meta)
	return err
}

func benchAppend(b *testing.B, size int) {
	ctx := context.Background()
	db := benchDB(b)
	es := db.Events()
	pair(b, func(i int) error {
		return es.Append(ctx, "bench", envs("bench", int64(i*size), size), spi.AppendOptions{})
	}, func(i int) error {
		return rawInsert(ctx, db, envs("bench", int64(i*size), size))
	})
	b.ReportMetric(float64(size), "events/op")
}

func BenchmarkAppendSingle(b *testing.B)   { benchAppend(b, 1) }
func BenchmarkAppendBatch100(b *testing.B) { benchAppend(b, 100) }

func BenchmarkRead100(b *testing.B) {
	ctx := context.Background()
	db := benchDB(b)
	es := db.Events()
	if err := es.Append(ctx, "r", envs("r", 0, 100), spi.AppendOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := rawInsert(ctx, db, envs("r", 0, 100)); err != nil {
		b.Fatal(err)
	}
	pair(b, func(int) error {
		got, err := es.Read(ctx, "r")
		if err == nil && len(got) != 100 {
			err = fmt.Errorf("read %d", len(got))
		}
		return err
	}, func(int) error {
		rows, err := db.Pool().Query(ctx, `SELECT execution_id, seq, id, workflow_id, event_type, ts, payload, metadata
			FROM raw_events WHERE execution_id = $1 ORDER BY seq`, "r")
		if err != nil {
			return err
		}
		_, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (spi.Envelope, error) {
			var e spi.Envelope
			var p string
			var m *string
			err := row.Scan(&e.ExecutionID, &e.Sequence, &e.ID, &e.WorkflowID, &e.EventType, &e.Timestamp, &p, &m)
			e.Payload = []byte(p)
			return e, err
		})
		return err
	})
}

// BenchmarkEventStoreKit is the wall time of the whole EventStore kit on PostgreSQL (target 30 s).
func BenchmarkEventStoreKit(b *testing.B) {
	dsn := postgres.TestDSN(b)
	factory := func(ctx context.Context) (spi.EventStore, func(), error) {
		db, cleanup, err := postgres.OpenTemp(ctx, dsn, "kitbench")
		if err != nil {
			return nil, nil, err
		}
		return db.Events(), cleanup, nil
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
