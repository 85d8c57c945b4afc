package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// EventStore is the SQLite EventStore.
type EventStore struct {
	db    *sql.DB
	stmts *stmts
	now   func() time.Time
}

// Implements implements spi.Capabilities: every optional method, storeNow only with a clock (an
// embedded single-process store omits it by default, spec §7, so callers use their injected clock).
func (s *EventStore) Implements(method string) bool {
	return method != spi.MethodStoreNow || s.now != nil
}

// EventStoreSpiVersion claims the current EventStore SPI.
func (s *EventStore) EventStoreSpiVersion() string { return manifest.EventStoreSpiVersion }

type execRow struct {
	next, incarnation, fence int64
}

// lockExec reads (creating if needed) the execution's row inside a write transaction.
func lockExec(ctx context.Context, tx *sql.Tx, id string) (execRow, error) {
	var r execRow
	err := tx.QueryRowContext(ctx,
		`INSERT INTO executions (id) VALUES (?) ON CONFLICT (id) DO UPDATE SET id = excluded.id
		 RETURNING next_seq, incarnation, fence`, id).Scan(&r.next, &r.incarnation, &r.fence)
	return r, err
}

const insertEvent = `INSERT INTO events (execution_id, seq, id, workflow_id, event_type, ts, payload, metadata) VALUES `

func insertEnvelopes(ctx context.Context, tx *sql.Tx, prefix string, events []spi.Envelope) error {
	const chunk = 100
	for start := 0; start < len(events); start += chunk {
		end := min(start+chunk, len(events))
		var b strings.Builder
		b.WriteString(prefix)
		args := make([]any, 0, 8*(end-start))
		for i, e := range events[start:end] {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("(?,?,?,?,?,?,?,?)")
			args = append(args, e.ExecutionID, e.Sequence, e.ID, e.WorkflowID, e.EventType, e.Timestamp, string(e.Payload), nullable(e.Metadata))
		}
		if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

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
	return inTx(ctx, s.db, func(tx *sql.Tx) error {
		r, err := lockExec(ctx, tx, id)
		if err != nil {
			return fmt.Errorf("sqlite: %s %q: %w", op, id, err)
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
		if err := insertEnvelopes(ctx, tx, insertEvent, events); err != nil {
			return fmt.Errorf("sqlite: %s %q: %w", op, id, err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE executions SET next_seq = ? WHERE id = ?`, r.next+int64(len(events)), id)
		return err
	})
}

// appendFast is append without an anchor: advance the head only if the batch starts at it and the
// fence (when given) is current, then insert, in one transaction. A first append at 0 creates the row.
func (s *EventStore) appendFast(ctx context.Context, op, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	first, n := events[0].Sequence, int64(len(events))
	return inTx(ctx, s.db, func(tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, s.stmts.advance).ExecContext(ctx, first, n, id, opts.Fence)
		if err != nil {
			return fmt.Errorf("sqlite: %s %q: %w", op, id, err)
		}
		moved, _ := res.RowsAffected()
		if moved == 0 && first == 0 && opts.Fence == 0 {
			res, err = tx.ExecContext(ctx, `INSERT INTO executions (id, next_seq) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`, id, n)
			if err != nil {
				return fmt.Errorf("sqlite: %s %q: %w", op, id, err)
			}
			moved, _ = res.RowsAffected()
		}
		if moved == 0 {
			var r execRow
			if err := tx.QueryRowContext(ctx, `SELECT next_seq, incarnation, fence FROM executions WHERE id = ?`, id).
				Scan(&r.next, &r.incarnation, &r.fence); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("sqlite: %s %q: %w", op, id, err)
			}
			if opts.Fence != 0 && opts.Fence != r.fence {
				return &spi.FencedError{ExecutionID: id, Held: opts.Fence, Current: r.fence}
			}
			return &spi.ConflictError{ExecutionID: id, Expected: first, Actual: r.next}
		}
		if len(events) == 1 {
			e := events[0]
			_, err = tx.StmtContext(ctx, s.stmts.insertOne).ExecContext(ctx,
				e.ExecutionID, e.Sequence, e.ID, e.WorkflowID, e.EventType, e.Timestamp, string(e.Payload), nullable(e.Metadata))
		} else {
			err = insertEnvelopes(ctx, tx, insertEvent, events)
		}
		if err != nil {
			return fmt.Errorf("sqlite: %s %q: %w", op, id, err)
		}
		return nil
	})
}

const advanceSQL = `UPDATE executions SET next_seq = ?1 + ?2 WHERE id = ?3 AND next_seq = ?1 AND (?4 = 0 OR fence = ?4)`

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
	rows, err := s.db.QueryContext(ctx,
		`SELECT execution_id, seq, id, workflow_id, event_type, ts, payload, metadata FROM events
		 WHERE execution_id = ? AND seq >= ? AND seq < ? ORDER BY seq`, id, from, to)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read %q: %w", id, err)
	}
	return scanEnvelopes(rows)
}

func scanEnvelopes(rows *sql.Rows) ([]spi.Envelope, error) {
	defer rows.Close()
	out := []spi.Envelope{}
	for rows.Next() {
		var e spi.Envelope
		var payload string
		var meta sql.NullString
		if err := rows.Scan(&e.ExecutionID, &e.Sequence, &e.ID, &e.WorkflowID, &e.EventType, &e.Timestamp, &payload, &meta); err != nil {
			return nil, err
		}
		e.Payload = []byte(payload)
		if meta.Valid {
			e.Metadata = []byte(meta.String)
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
	err := inTx(ctx, s.db, func(tx *sql.Tx) error {
		r, err := lockExec(ctx, tx, id)
		if err != nil {
			return err
		}
		if expected >= 0 && r.fence != expected {
			return &spi.FencedError{ExecutionID: id, Held: expected, Current: r.fence}
		}
		f = spi.Fence{ExecutionID: id, Token: r.fence + 1}
		_, err = tx.ExecContext(ctx, `UPDATE executions SET fence = ? WHERE id = ?`, f.Token, id)
		return err
	})
	return f, err
}

// Observe implements spi.ConditionalAppender.
func (s *EventStore) Observe(ctx context.Context, id string) (spi.Anchor, error) {
	var r execRow
	err := s.db.QueryRowContext(ctx, `SELECT next_seq, incarnation, fence FROM executions WHERE id = ?`, id).Scan(&r.next, &r.incarnation, &r.fence)
	if errors.Is(err, sql.ErrNoRows) {
		return anchorOf(execRow{}), nil
	}
	if err != nil {
		return "", fmt.Errorf("sqlite: observe %q: %w", id, err)
	}
	return anchorOf(r), nil
}

// AppendIfUnchanged implements spi.ConditionalAppender.
func (s *EventStore) AppendIfUnchanged(ctx context.Context, id string, anchor spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	return s.appendIf(ctx, "appendIfUnchanged", id, &anchor, events, opts)
}

// StoreNow implements spi.Clock with the configured clock (spi.ErrUnsupported without one).
func (s *EventStore) StoreNow(ctx context.Context) (int64, error) {
	if s.now == nil {
		return 0, fmt.Errorf("sqlite: storeNow: no clock configured: %w", spi.ErrUnsupported)
	}
	return s.now().UnixMilli(), ctx.Err()
}

// DeleteThrough implements spi.ThroughDeleter.
func (s *EventStore) DeleteThrough(ctx context.Context, id string, through int64) error {
	if through < 0 {
		return spi.Invalid("deleteThrough", "through", "%d is negative", through)
	}
	_, err := s.db.ExecContext(ctx, `DELETE FROM events WHERE execution_id = ? AND seq <= ?`, id, through)
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
	return inTx(ctx, s.db, func(tx *sql.Tx) error {
		src, err := lockExec(ctx, tx, source)
		if err != nil {
			return err
		}
		if through < 0 || through >= src.next {
			return spi.Invalid("copyPrefix", "through", "%d is outside the source log", through)
		}
		var n int64
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE execution_id = ? AND seq <= ?`, source, through).Scan(&n); err != nil {
			return err
		}
		if n != through+1 {
			return spi.Invalid("copyPrefix", "source", "the prefix of %q is no longer stored", source)
		}
		dst, err := lockExec(ctx, tx, target)
		if err != nil {
			return err
		}
		if dst.next != 0 {
			return spi.ErrAlreadyExists
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO events (execution_id, seq, id, workflow_id, event_type, ts, payload, metadata)
			 SELECT ?, seq, id, workflow_id, event_type, ts, payload, metadata FROM events WHERE execution_id = ? AND seq <= ?`,
			target, source, through); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE executions SET next_seq = ? WHERE id = ?`, through+1, target)
		return err
	})
}

// DeleteExecution implements spi.ExecutionDeleter.
func (s *EventStore) DeleteExecution(ctx context.Context, id string) error {
	return inTx(ctx, s.db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM events WHERE execution_id = ?`, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx,
			`UPDATE executions SET next_seq = 0, incarnation = incarnation + 1, fence = fence + 1 WHERE id = ?`, id)
		return err
	})
}

// ListExecutionsPage implements spi.ExecutionLister.
func (s *EventStore) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	if limit < 1 {
		return spi.Page{}, spi.Invalid("listExecutionsPage", "limit", "%d is below 1", limit)
	}
	rows, err := s.db.QueryContext(ctx,
		`SELECT DISTINCT execution_id FROM events WHERE execution_id > ? ORDER BY execution_id LIMIT ?`, cursor, limit+1)
	if err != nil {
		return spi.Page{}, err
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return spi.Page{}, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return spi.Page{}, err
	}
	if len(ids) > limit {
		return spi.Page{ExecutionIDs: ids[:limit], Next: ids[limit-1]}, nil
	}
	return spi.Page{ExecutionIDs: ids}, nil
}
