package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

const ddl = `
CREATE TABLE IF NOT EXISTS dispatch_targets (name TEXT COLLATE "C" PRIMARY KEY);
CREATE TABLE IF NOT EXISTS dispatch_queue (
	id           BIGSERIAL PRIMARY KEY,
	execution_id TEXT COLLATE "C" NOT NULL,
	flow_id      TEXT NOT NULL,
	target       TEXT COLLATE "C" NOT NULL DEFAULT '',
	hints        TEXT,
	token        TEXT UNIQUE,
	worker       TEXT,
	lease_until  TIMESTAMPTZ,
	deliveries   INT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS dispatch_queue_execution ON dispatch_queue (execution_id, id);`

// Dispatcher is the PostgreSQL ExecutionDispatcher with its worker side (spi.LeaseQueue). It is safe
// for concurrent use, also from many processes on one schema.
type Dispatcher struct {
	pool *pgxpool.Pool
}

var (
	_ spi.ExecutionDispatcher          = (*Dispatcher)(nil)
	_ spi.LeaseQueue                   = (*Dispatcher)(nil)
	_ spi.ExecutionDispatcherVersioned = (*Dispatcher)(nil)
)

// New creates the dispatcher's tables in the pool's schema (search_path) if needed and registers
// targets (a target stays registered once any process registered it).
func New(ctx context.Context, pool *pgxpool.Pool, targets []string) (*Dispatcher, error) {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('loom-conform:dispatch:' || current_schema()))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, ddl); err != nil {
			return err
		}
		for _, t := range targets {
			if t == "" {
				return &spi.InvalidArgumentError{Op: "postgres.New", Argument: "targets", Reason: "an empty target name"}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO dispatch_targets (name) VALUES ($1) ON CONFLICT DO NOTHING`, t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres dispatcher: setup: %w", err)
	}
	return &Dispatcher{pool: pool}, nil
}

// ExecutionDispatcherSpiVersion states the SPI version the dispatcher claims.
func (d *Dispatcher) ExecutionDispatcherSpiVersion() string {
	return manifest.ExecutionDispatcherSpiVersion
}

// Targets lists the registered targets, ascending by byte order.
func (d *Dispatcher) Targets(ctx context.Context) ([]string, error) {
	rows, err := d.pool.Query(ctx, `SELECT name FROM dispatch_targets ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("postgres dispatcher: targets: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Dispatch queues pkg; a pinned target must be registered, checked in the same statement.
func (d *Dispatcher) Dispatch(ctx context.Context, pkg spi.ExecutionPackage) error {
	if err := pkg.Validate(); err != nil {
		return err
	}
	var hints *string
	if len(pkg.Hints) > 0 {
		s := string(pkg.Hints)
		hints = &s
	}
	tag, err := d.pool.Exec(ctx, `INSERT INTO dispatch_queue (execution_id, flow_id, target, hints)
		SELECT $1, $2, $3, $4 WHERE $3 = '' OR EXISTS (SELECT 1 FROM dispatch_targets WHERE name = $3)`,
		pkg.ExecutionID, pkg.FlowID, pkg.Target, hints)
	if err != nil {
		return fmt.Errorf("postgres dispatcher: dispatch %q: %w", pkg.ExecutionID, err)
	}
	if tag.RowsAffected() == 0 {
		known, err := d.Targets(ctx)
		if err != nil {
			return err
		}
		return &spi.UnknownTargetError{Target: pkg.Target, Known: known}
	}
	return nil
}

const leaseCols = `d.execution_id, d.flow_id, d.target, d.hints, d.token, d.worker, d.deliveries,
	(extract(epoch FROM d.lease_until) * 1000)::bigint`

func scanLease(row pgx.Row) (spi.Lease, error) {
	var l spi.Lease
	var hints *string
	err := row.Scan(&l.Package.ExecutionID, &l.Package.FlowID, &l.Package.Target, &hints, &l.Token, &l.Worker, &l.Delivery, &l.ExpiresAt)
	if hints != nil {
		l.Package.Hints = []byte(*hints)
	}
	return l, err
}

// Claim leases the oldest deliverable package: the head of its execution's queue, with no live
// lease, pinned to a served target or unpinned. Rows another claimer holds are skipped
// (FOR UPDATE SKIP LOCKED), so claimers never wait on each other.
func (d *Dispatcher) Claim(ctx context.Context, r spi.ClaimRequest) (spi.Lease, bool, error) {
	if err := r.Validate(); err != nil {
		return spi.Lease{}, false, err
	}
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	row := d.pool.QueryRow(ctx, `WITH c AS (
			SELECT q.id FROM dispatch_queue q
			WHERE (q.target = '' OR q.target = ANY($1))
			  AND (q.lease_until IS NULL OR q.lease_until <= clock_timestamp())
			  AND NOT EXISTS (SELECT 1 FROM dispatch_queue p WHERE p.execution_id = q.execution_id AND p.id < q.id)
			ORDER BY q.id
			LIMIT 1
			FOR UPDATE SKIP LOCKED)
		UPDATE dispatch_queue d SET deliveries = d.deliveries + 1, worker = $2,
			token = d.id || '-' || (d.deliveries + 1) || '-' || $3,
			lease_until = clock_timestamp() + $4 * interval '1 millisecond'
		FROM c WHERE d.id = c.id
		RETURNING `+leaseCols, r.Targets, r.Worker, hex.EncodeToString(nonce[:]), r.TTL.Milliseconds())
	l, err := scanLease(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return spi.Lease{}, false, nil
	}
	if err != nil {
		return spi.Lease{}, false, fmt.Errorf("postgres dispatcher: claim: %w", err)
	}
	return l, true, nil
}

// Heartbeat extends a live lease by ttl from the database's now.
func (d *Dispatcher) Heartbeat(ctx context.Context, l spi.Lease, ttl time.Duration) (spi.Lease, error) {
	if ttl < spi.MinLeaseTTL || ttl > spi.MaxLeaseTTL {
		return spi.Lease{}, &spi.InvalidArgumentError{Op: "heartbeat", Argument: "ttl", Reason: fmt.Sprintf("%s, want %s..%s", ttl, spi.MinLeaseTTL, spi.MaxLeaseTTL)}
	}
	row := d.pool.QueryRow(ctx, `UPDATE dispatch_queue d SET lease_until = clock_timestamp() + $2 * interval '1 millisecond'
		WHERE d.token = $1 AND d.lease_until > clock_timestamp() RETURNING `+leaseCols, l.Token, ttl.Milliseconds())
	nl, err := scanLease(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return spi.Lease{}, &spi.LeaseLostError{ExecutionID: l.Package.ExecutionID, Token: l.Token}
	}
	if err != nil {
		return spi.Lease{}, fmt.Errorf("postgres dispatcher: heartbeat: %w", err)
	}
	return nl, nil
}

// Ack removes the package of a live lease.
func (d *Dispatcher) Ack(ctx context.Context, l spi.Lease) error {
	tag, err := d.pool.Exec(ctx, `DELETE FROM dispatch_queue WHERE token = $1 AND lease_until > clock_timestamp()`, l.Token)
	if err != nil {
		return fmt.Errorf("postgres dispatcher: ack: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return &spi.LeaseLostError{ExecutionID: l.Package.ExecutionID, Token: l.Token}
	}
	return nil
}

// Pending counts the packages not yet acked.
func (d *Dispatcher) Pending(ctx context.Context) (int, error) {
	var n int
	err := d.pool.QueryRow(ctx, `SELECT count(*) FROM dispatch_queue`).Scan(&n)
	return n, err
}
