package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// EventStore is the PostgreSQL EventStore.
type EventStore struct{ pool *pgxpool.Pool }

// EventStoreSpiVersion claims the current EventStore SPI.
func (s *EventStore) EventStoreSpiVersion() string { return manifest.EventStoreSpiVersion }

type execRow struct{ next, incarnation, fence int64 }

// lockExec creates the execution's row if needed and locks it for the transaction.
func lockExec(ctx context.Context, tx pgx.Tx, id string) (execRow, error) {
	var r execRow
	err := tx.QueryRow(ctx, `INSERT INTO executions (id) VALUES ($1)
		ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id
		RETURNING next_seq, incarnation, fence`, id).Scan(&r.next, &r.incarnation, &r.fence)
	return r, err
}

// columns turns envelopes into the column arrays of one unnest insert.
func columns(events []spi.Envelope) []any {
	n := len(events)
	ex, ids, wf, typ, pay := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	seq, ts := make([]int64, n), make([]int64, n)
	meta := make([]*string, n)
	for i, e := range events {
		ex[i], seq[i], ids[i], wf[i], typ[i], ts[i], pay[i], meta[i] = e.ExecutionID, e.Sequence, e.ID, e.WorkflowID, e.EventType, e.Timestamp, string(e.Payload), nullable(e.Metadata)
	}
	return []any{ex, seq, ids, wf, typ, ts, pay, meta}
}

const unnestCols = `(execution_id, seq, id, workflow_id, event_type, ts, payload, metadata)
	SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[])`

// Append implements spi.EventStore.
func (s *EventStore) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	return s.appendIf(ctx, "append", id, nil, events, opts)
}

func (s *EventStore) appendIf(ctx context.Context, op, id string, anchor *spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := spi.ValidateBatch(op, id, events); err != nil {
		return err
	}
	if len(events) == 0 && anchor == nil && opts.Fence == 0 {
		return ctx.Err()
	}
	if anchor == nil && len(events) > 0 {
		return s.appendFast(ctx, op, id, events, opts)
	}
	return writeTx(ctx, s.pool, func(ctx context.Context, tx pgx.Tx) error {
		r, err := lockExec(ctx, tx, id)
		if err != nil {
			return fmt.Errorf("postgres: %s %q: %w", op, id, err)
		}
		if opts.Fence != 0 && opts.Fence != r.fence {
			return &spi.FencedError{ExecutionID: id, Held: opts.Fence, Current: r.fence}
		}
		if anchor != nil && *anchor != anchorOf(r) {
			return &spi.ConflictError{ExecutionID: id, Expected: -1, Actual: r.next, Reason: "log changed since the observation anchor"}
		}
		if len(events) == 0 {
			return nil
		}
		if events[0].Sequence != r.next {
			return &spi.ConflictError{ExecutionID: id, Expected: events[0].Sequence, Actual: r.next}
		}
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO events `+unnestCols, columns(events)...)
		b.Queue(`UPDATE executions SET next_seq = $1 WHERE id = $2`, r.next+int64(len(events)), id)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("postgres: %s %q: %w", op, id, err)
		}
		return nil
	})
}

// appendOne is append without an anchor as ONE statement (so atomic without a transaction, and one
// round trip): advance the head only if the batch starts at it and the fence (when given) is
// current, create the row for a first append at 0, and insert the envelopes only if one of those
// happened. Row locking of the UPDATE makes racing appends at one sequence serialise: the loser
// re-checks next_seq, finds it moved and inserts nothing.
const appendOne = `WITH adv AS (
		UPDATE executions SET next_seq = $9::bigint + $10::bigint
		WHERE id = $11 AND next_seq = $9::bigint AND ($12::bigint = 0 OR fence = $12::bigint)
		RETURNING 1
	), created AS (
		INSERT INTO executions (id, next_seq)
		SELECT $11, $10::bigint WHERE $9::bigint = 0 AND $12::bigint = 0 AND NOT EXISTS (SELECT 1 FROM adv)
		ON CONFLICT (id) DO NOTHING
		RETURNING 1
	)
	INSERT INTO events (execution_id, seq, id, workflow_id, event_type, ts, payload, metadata)
	SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[])
	WHERE EXISTS (SELECT 1 FROM adv) OR EXISTS (SELECT 1 FROM created)`

func (s *EventStore) appendFast(ctx context.Context, op, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	first, n := events[0].Sequence, int64(len(events))
	args := append(columns(events), first, n, id, opts.Fence)
	wctx, cancel, err := detach(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	tag, err := s.pool.Exec(wctx, appendOne, args...)
	if err != nil {
		return fmt.Errorf("postgres: %s %q: %w", op, id, err)
	}
	if tag.RowsAffected() == n {
		return nil
	}
	var r execRow
	if err := s.pool.QueryRow(ctx, `SELECT next_seq, incarnation, fence FROM executions WHERE id = $1`, id).
		Scan(&r.next, &r.incarnation, &r.fence); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("postgres: %s %q: %w", op, id, err)
	}
	if opts.Fence != 0 && opts.Fence != r.fence {
		return &spi.FencedError{ExecutionID: id, Held: opts.Fence, Current: r.fence}
	}
	return &spi.ConflictError{ExecutionID: id, Expected: first, Actual: r.next}
}

func anchorOf(r execRow) spi.Anchor { return spi.Anchor(fmt.Sprintf("%d:%d", r.incarnation, r.next)) }

// Read implements spi.EventStore.
func (s *EventStore) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	return s.ReadRange(ctx, id, 0, -1)
}

// ReadRange implements spi.RangeReader.
func (s *EventStore) ReadRange(ctx context.Context, id string, from, to int64) ([]spi.Envelope, error) {
	if from < 0 {
		return nil, spi.Invalid("readRange", "from", "%d is negative", from)
	}
	if to < 0 {
		to = 1<<63 - 1
	}
	rows, err := s.pool.Query(ctx, `SELECT execution_id, seq, id, workflow_id, event_type, ts, payload, metadata
		FROM events WHERE execution_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq`, id, from, to)
	if err != nil {
		return nil, fmt.Errorf("postgres: read %q: %w", id, err)
	}
	return scanEnvelopes(rows)
}

func scanEnvelopes(rows pgx.Rows) ([]spi.Envelope, error) {
	defer rows.Close()
	out := []spi.Envelope{}
	for rows.Next() {
		var e spi.Envelope
		var payload string
		var meta *string
		if err := rows.Scan(&e.ExecutionID, &e.Sequence, &e.ID, &e.WorkflowID, &e.EventType, &e.Timestamp, &payload, &meta); err != nil {
			return nil, err
		}
		e.Payload = []byte(payload)
		if meta != nil {
			e.Metadata = []byte(*meta)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// AcquireFence implements spi.Fencer.
func (s *EventStore) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	return s.fence(ctx, "acquireFence", id, -1)
}

// AcquireFenceIf implements spi.ConditionalFencer.
func (s *EventStore) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	return s.fence(ctx, "acquireFenceIf", id, expected)
}

func (s *EventStore) fence(ctx context.Context, op, id string, expected int64) (spi.Fence, error) {
	if id == "" {
		return spi.Fence{}, spi.Invalid(op, "executionId", "empty")
	}
	var f spi.Fence
	err := writeTx(ctx, s.pool, func(ctx context.Context, tx pgx.Tx) error {
		r, err := lockExec(ctx, tx, id)
		if err != nil {
			return err
		}
		if expected >= 0 && r.fence != expected {
			return &spi.FencedError{ExecutionID: id, Held: expected, Current: r.fence}
		}
		f = spi.Fence{ExecutionID: id, Token: r.fence + 1}
		_, err = tx.Exec(ctx, `UPDATE executions SET fence = $1 WHERE id = $2`, f.Token, id)
		return err
	})
	return f, err
}

// Observe implements spi.ConditionalAppender.
func (s *EventStore) Observe(ctx context.Context, id string) (spi.Anchor, error) {
	var r execRow
	err := s.pool.QueryRow(ctx, `SELECT next_seq, incarnation, fence FROM executions WHERE id = $1`, id).Scan(&r.next, &r.incarnation, &r.fence)
	if errors.Is(err, pgx.ErrNoRows) {
		return anchorOf(execRow{}), nil
	}
	if err != nil {
		return "", fmt.Errorf("postgres: observe %q: %w", id, err)
	}
	return anchorOf(r), nil
}

// AppendIfUnchanged implements spi.ConditionalAppender.
func (s *EventStore) AppendIfUnchanged(ctx context.Context, id string, anchor spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	return s.appendIf(ctx, "appendIfUnchanged", id, &anchor, events, opts)
}

// StoreNow implements spi.Clock with database time.
func (s *EventStore) StoreNow(ctx context.Context) (int64, error) {
	var ms int64
	err := s.pool.QueryRow(ctx, `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint`).Scan(&ms)
	return ms, err
}

// DeleteThrough implements spi.ThroughDeleter (one statement, so atomic).
func (s *EventStore) DeleteThrough(ctx context.Context, id string, through int64) error {
	if through < 0 {
		return spi.Invalid("deleteThrough", "through", "%d is negative", through)
	}
	err := writeExec(ctx, s.pool, `DELETE FROM events WHERE execution_id = $1 AND seq <= $2`, id, through)
	return err
}

// SealingCapability implements spi.SealingReporter: this store seals nothing.
func (s *EventStore) SealingCapability(ctx context.Context) (*spi.Sealing, error) {
	return nil, ctx.Err()
}

// CopyPrefix implements spi.PrefixCopier.
func (s *EventStore) CopyPrefix(ctx context.Context, source, target string, through int64) error {
	if source == "" || target == "" || source == target {
		return spi.Invalid("copyPrefix", "source/target", "must be two different non-empty ids")
	}
	return writeTx(ctx, s.pool, func(ctx context.Context, tx pgx.Tx) error {
		// Lock in id order so two opposite copies cannot deadlock.
		first, second := source, target
		if second < first {
			first, second = second, first
		}
		r1, err := lockExec(ctx, tx, first)
		if err != nil {
			return err
		}
		r2, err := lockExec(ctx, tx, second)
		if err != nil {
			return err
		}
		src, dst := r1, r2
		if first != source {
			src, dst = r2, r1
		}
		if through < 0 || through >= src.next {
			return spi.Invalid("copyPrefix", "through", "%d is outside the source log", through)
		}
		var n int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM events WHERE execution_id = $1 AND seq <= $2`, source, through).Scan(&n); err != nil {
			return err
		}
		if n != through+1 {
			return spi.Invalid("copyPrefix", "source", "the prefix of %q is no longer stored", source)
		}
		if dst.next != 0 {
			return spi.ErrAlreadyExists
		}
		if _, err := tx.Exec(ctx, `INSERT INTO events (execution_id, seq, id, workflow_id, event_type, ts, payload, metadata)
			SELECT $1, seq, id, workflow_id, event_type, ts, payload, metadata FROM events WHERE execution_id = $2 AND seq <= $3`,
			target, source, through); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE executions SET next_seq = $1 WHERE id = $2`, through+1, target)
		return err
	})
}

// DeleteExecution implements spi.ExecutionDeleter.
func (s *EventStore) DeleteExecution(ctx context.Context, id string) error {
	return writeTx(ctx, s.pool, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE executions SET next_seq = 0, incarnation = incarnation + 1, fence = fence + 1 WHERE id = $1`, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM events WHERE execution_id = $1`, id)
		return err
	})
}

// ListExecutionsPage implements spi.ExecutionLister.
func (s *EventStore) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	if limit < 1 {
		return spi.Page{}, spi.Invalid("listExecutionsPage", "limit", "%d is below 1", limit)
	}
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT execution_id FROM events WHERE execution_id > $1 ORDER BY execution_id LIMIT $2`, cursor, limit+1)
	if err != nil {
		return spi.Page{}, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return spi.Page{}, err
	}
	if ids == nil {
		ids = []string{}
	}
	if len(ids) > limit {
		return spi.Page{ExecutionIDs: ids[:limit], Next: ids[limit-1]}, nil
	}
	return spi.Page{ExecutionIDs: ids}, nil
}
