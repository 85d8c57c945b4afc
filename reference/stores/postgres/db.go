package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SchemaVersion is the schema this package writes (table loom_schema).
const SchemaVersion = 2

var migrations = []string{
	// version 1
	`CREATE TABLE executions (
		id          TEXT COLLATE "C" PRIMARY KEY,
		next_seq    BIGINT NOT NULL DEFAULT 0,
		incarnation BIGINT NOT NULL DEFAULT 0,
		fence       BIGINT NOT NULL DEFAULT 0
	);
	CREATE TABLE events (
		execution_id TEXT COLLATE "C" NOT NULL,
		seq          BIGINT NOT NULL,
		id           TEXT   NOT NULL,
		workflow_id  TEXT   NOT NULL,
		event_type   TEXT   NOT NULL,
		ts           BIGINT NOT NULL,
		payload      TEXT   NOT NULL,
		metadata     TEXT,
		PRIMARY KEY (execution_id, seq)
	);
	CREATE TABLE snapshots (
		execution_id TEXT COLLATE "C" NOT NULL,
		seq          BIGINT  NOT NULL,
		state        TEXT    NOT NULL,
		sealed       BOOLEAN NOT NULL DEFAULT false,
		PRIMARY KEY (execution_id, seq)
	);
	CREATE TABLE archive (
		execution_id TEXT COLLATE "C" NOT NULL,
		seq          BIGINT NOT NULL,
		id           TEXT   NOT NULL,
		workflow_id  TEXT   NOT NULL,
		event_type   TEXT   NOT NULL,
		ts           BIGINT NOT NULL,
		payload      TEXT   NOT NULL,
		metadata     TEXT,
		PRIMARY KEY (execution_id, seq)
	);
	CREATE TABLE branches (
		id        TEXT COLLATE "C" PRIMARY KEY,
		parent_id TEXT COLLATE "C" NOT NULL,
		fork_seq  BIGINT NOT NULL,
		metadata  TEXT
	);
	CREATE INDEX branches_parent ON branches (parent_id, id);`,
	// version 2: the plugin-tier seams (values as text, so numbers and key order stay exact)
	`CREATE TABLE content (
		owner  TEXT COLLATE "C" NOT NULL,
		digest TEXT COLLATE "C" NOT NULL,
		data   BYTEA NOT NULL,
		PRIMARY KEY (owner, digest)
	);
	CREATE TABLE durable_state (
		key     TEXT COLLATE "C" PRIMARY KEY,
		value   TEXT,
		version BIGINT NOT NULL
	);
	CREATE TABLE read_models (
		model TEXT COLLATE "C" NOT NULL,
		id    TEXT COLLATE "C" NOT NULL,
		doc   TEXT NOT NULL,
		PRIMARY KEY (model, id)
	);`,
}

// DB is one PostgreSQL schema holding every seam.
type DB struct {
	pool   *pgxpool.Pool
	schema string
}

var schemaName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`) })

// Open connects to dsn, creates schema if needed and migrates it to SchemaVersion. Every connection
// of the pool uses schema as its search_path, so parallel test runs in separate schemas never meet.
func Open(ctx context.Context, dsn, schema string) (*DB, error) {
	if !schemaName().MatchString(schema) {
		return nil, fmt.Errorf("postgres: schema %q: want a lower-case identifier", schema)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse DSN: %w", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	if cfg.MaxConns < 8 {
		cfg.MaxConns = 8
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	d := &DB{pool: pool, schema: schema}
	if err := d.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return d, nil
}

func (d *DB) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		ident := pgx.Identifier{d.schema}.Sanitize()
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "loom-conform:"+d.schema); err != nil {
			return fmt.Errorf("postgres: migrate %s: lock: %w", d.schema, err)
		}
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+ident); err != nil {
			return fmt.Errorf("postgres: migrate %s: %w", d.schema, err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+ident+`.loom_schema (version INT NOT NULL)`); err != nil {
			return fmt.Errorf("postgres: migrate %s: %w", d.schema, err)
		}
		var v int
		err := tx.QueryRow(ctx, `SELECT version FROM `+ident+`.loom_schema`).Scan(&v)
		if errors.Is(err, pgx.ErrNoRows) {
			if _, err := tx.Exec(ctx, `INSERT INTO `+ident+`.loom_schema VALUES (0)`); err != nil {
				return err
			}
		} else if err != nil {
			return fmt.Errorf("postgres: migrate %s: read version: %w", d.schema, err)
		}
		if v > len(migrations) {
			return fmt.Errorf("postgres: schema %s has version %d, this build knows up to %d", d.schema, v, len(migrations))
		}
		if _, err := tx.Exec(ctx, `SET LOCAL search_path TO `+ident); err != nil {
			return err
		}
		for i := v; i < len(migrations); i++ {
			if _, err := tx.Exec(ctx, migrations[i]); err != nil {
				return fmt.Errorf("postgres: migrate %s to version %d: %w", d.schema, i+1, err)
			}
		}
		_, err = tx.Exec(ctx, `UPDATE `+ident+`.loom_schema SET version = $1`, len(migrations))
		return err
	})
}

// Close closes the pool.
func (d *DB) Close() { d.pool.Close() }

// DropSchema drops the schema and everything in it (tests use one schema per run).
func (d *DB) DropSchema(ctx context.Context) error {
	_, err := d.pool.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{d.schema}.Sanitize()+` CASCADE`)
	return err
}

// Pool exposes the pool (benchmarks compare against it).
func (d *DB) Pool() *pgxpool.Pool { return d.pool }

// Events returns the EventStore over this schema.
func (d *DB) Events() *EventStore { return &EventStore{pool: d.pool} }

// Snapshots returns the SnapshotStore over this schema.
func (d *DB) Snapshots() *SnapshotStore { return &SnapshotStore{pool: d.pool} }

// Archive returns the ArchiveStore over this schema.
func (d *DB) Archive() *ArchiveStore { return &ArchiveStore{pool: d.pool} }

// Branches returns the BranchRegistry over this schema.
func (d *DB) Branches() *BranchRegistry { return &BranchRegistry{pool: d.pool} }

// Content returns the ContentStore over this schema.
func (d *DB) Content() *ContentStore { return &ContentStore{pool: d.pool} }

// DurableState returns the DurableStateStore over this schema.
func (d *DB) DurableState() *DurableStateStore { return &DurableStateStore{pool: d.pool} }

// ReadModels returns the ReadModelStore over this schema.
func (d *DB) ReadModels() *ReadModelStore { return &ReadModelStore{pool: d.pool} }

func nullable(raw []byte) *string {
	if len(raw) == 0 {
		return nil
	}
	s := string(raw)
	return &s
}

// WriteTimeout bounds a write once it has been sent.
const WriteTimeout = 30 * time.Second

// detach returns the context a write runs under once started: the caller's cancellation is honoured
// only before the write is sent, so a write never lands after its call returned an error (a
// cancelled statement or COMMIT in flight could otherwise still commit on the server).
func detach(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	w, cancel := context.WithTimeout(context.WithoutCancel(ctx), WriteTimeout)
	return w, cancel, nil
}

// writeTx runs f in a transaction under a detached context (see detach).
func writeTx(ctx context.Context, pool *pgxpool.Pool, f func(ctx context.Context, tx pgx.Tx) error) error {
	w, cancel, err := detach(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	return pgx.BeginFunc(w, pool, func(tx pgx.Tx) error { return f(w, tx) })
}

// writeExec runs one write statement under a detached context (see detach).
func writeExec(ctx context.Context, pool *pgxpool.Pool, sql string, args ...any) error {
	w, cancel, err := detach(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = pool.Exec(w, sql, args...)
	return err
}
