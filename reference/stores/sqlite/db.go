package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// SchemaVersion is the schema this package writes (PRAGMA user_version).
const SchemaVersion = 2

// BusyTimeout is how long a writer waits for the database lock.
const BusyTimeout = 10 * time.Second

// WALLimit bounds the write-ahead log while the database is open: SQLite truncates the log to it
// whenever a checkpoint starts it over (journal_size_limit), and the database's keeper runs a
// TRUNCATE checkpoint (Checkpoint) whenever it finds the log past it, looking every
// CheckpointEvery — under steady reads SQLite's own passive checkpoints never start the log over,
// and it only grew.
const WALLimit = 16 << 20

// maxConns bounds the database's connections (reads and writes at once).
const maxConns = 8

// CheckpointEvery is how often the keeper looks at the write-ahead log's size.
const CheckpointEvery = time.Second

var migrations = []string{
	// version 1
	`CREATE TABLE executions (
		id          TEXT PRIMARY KEY,
		next_seq    INTEGER NOT NULL DEFAULT 0,
		incarnation INTEGER NOT NULL DEFAULT 0,
		fence       INTEGER NOT NULL DEFAULT 0
	) WITHOUT ROWID;
	CREATE TABLE events (
		execution_id TEXT    NOT NULL,
		seq          INTEGER NOT NULL,
		id           TEXT    NOT NULL,
		workflow_id  TEXT    NOT NULL,
		event_type   TEXT    NOT NULL,
		ts           INTEGER NOT NULL,
		payload      TEXT    NOT NULL,
		metadata     TEXT,
		PRIMARY KEY (execution_id, seq)
	) WITHOUT ROWID;
	CREATE TABLE snapshots (
		execution_id TEXT    NOT NULL,
		seq          INTEGER NOT NULL,
		state        TEXT    NOT NULL,
		sealed       INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (execution_id, seq)
	) WITHOUT ROWID;
	CREATE TABLE archive (
		execution_id TEXT    NOT NULL,
		seq          INTEGER NOT NULL,
		id           TEXT    NOT NULL,
		workflow_id  TEXT    NOT NULL,
		event_type   TEXT    NOT NULL,
		ts           INTEGER NOT NULL,
		payload      TEXT    NOT NULL,
		metadata     TEXT,
		PRIMARY KEY (execution_id, seq)
	) WITHOUT ROWID;
	CREATE TABLE branches (
		id        TEXT PRIMARY KEY,
		parent_id TEXT    NOT NULL,
		fork_seq  INTEGER NOT NULL,
		metadata  TEXT
	) WITHOUT ROWID;
	CREATE INDEX branches_parent ON branches (parent_id, id);`,
	// version 2: the plugin-tier seams
	`CREATE TABLE content (
		owner  TEXT    NOT NULL,
		digest TEXT    NOT NULL,
		data   BLOB    NOT NULL,
		PRIMARY KEY (owner, digest)
	) WITHOUT ROWID;
	CREATE TABLE durable_state (
		key     TEXT    PRIMARY KEY,
		value   TEXT,
		version INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE TABLE read_models (
		model TEXT NOT NULL,
		id    TEXT NOT NULL,
		doc   TEXT NOT NULL,
		PRIMARY KEY (model, id)
	) WITHOUT ROWID;`,
}

// DB is one SQLite database file holding every seam.
//
// What an acknowledged write survives: the journal is a write-ahead log with synchronous=NORMAL,
// so a write whose call returned is in the log file when the call returns and survives the
// process being killed (kill -9, a panic, an OOM kill); it may be lost if the machine loses power
// or its operating system crashes before the log reaches the disk (SQLite syncs it at
// checkpoints), which synchronous=FULL would rule out at a cost on every commit.
type DB struct {
	db    *sql.DB
	path  string
	stmts *stmts
	stop  chan struct{} // ends the keeper
	kept  chan struct{} // closed when it has ended
	once  sync.Once
}

// stmts are the statements of the append fast path, prepared once.
type stmts struct {
	advance   *sql.Stmt // move the head if the batch starts at it and the fence holds
	insertOne *sql.Stmt // insert one envelope
}

func prepare(ctx context.Context, db *sql.DB) (*stmts, error) {
	adv, err := db.PrepareContext(ctx, advanceSQL)
	if err != nil {
		return nil, err
	}
	one, err := db.PrepareContext(ctx, insertEvent+"(?,?,?,?,?,?,?,?)")
	if err != nil {
		adv.Close()
		return nil, err
	}
	return &stmts{advance: adv, insertOne: one}, nil
}

// DSN builds the driver DSN for path: WAL, busy timeout, foreign keys, immediate write transactions.
func DSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", WALLimit))
	q.Add("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if needed) the database file at path and migrates it to SchemaVersion. A file
// written by a newer schema is refused.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(maxConns)
	d := &DB{db: db, path: path}
	if err := d.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if d.stmts, err = prepare(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: prepare %s: %w", path, err)
	}
	d.stop, d.kept = make(chan struct{}), make(chan struct{})
	go d.keep()
	return d, nil
}

// keep checkpoints the write-ahead log whenever it has grown past WALLimit, until Close.
func (d *DB) keep() {
	defer close(d.kept)
	t := time.NewTicker(CheckpointEvery)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
			if d.WALSize() > WALLimit {
				d.truncate()
			}
		}
	}
}

// truncate checkpoints the log, waiting at most a second for the calls in flight.
func (d *DB) truncate() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = d.Checkpoint(ctx)
}

// WALSize returns the size of the write-ahead log file (0 when there is none).
func (d *DB) WALSize() int64 {
	fi, err := os.Stat(d.path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Checkpoint copies the write-ahead log into the database and truncates it (a TRUNCATE
// checkpoint), and returns the log's size after. It takes every connection of the database first,
// waiting (until ctx ends) for the calls in flight and holding the next ones back for the few
// milliseconds it runs: beside steady readers, or an automatic checkpoint a committing writer runs,
// a TRUNCATE checkpoint is refused as busy.
func (d *DB) Checkpoint(ctx context.Context) (int64, error) {
	conns := make([]*sql.Conn, 0, maxConns)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for range maxConns {
		c, err := d.db.Conn(ctx)
		if err != nil {
			return d.WALSize(), fmt.Errorf("sqlite: checkpoint %s: waiting for the calls in flight: %w", d.path, err)
		}
		conns = append(conns, c)
	}
	var busy, logged, moved int
	if err := conns[0].QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &moved); err != nil {
		return d.WALSize(), fmt.Errorf("sqlite: checkpoint %s: %w", d.path, err)
	}
	if busy != 0 {
		return d.WALSize(), fmt.Errorf("sqlite: checkpoint %s: another process kept it busy (%d of %d pages copied)", d.path, moved, logged)
	}
	return d.WALSize(), nil
}

func (d *DB) migrate(ctx context.Context) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: migrate %s: %w", d.path, err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("sqlite: migrate %s: read user_version: %w", d.path, err)
	}
	if v > len(migrations) {
		return fmt.Errorf("sqlite: %s has schema version %d, this build knows up to %d", d.path, v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("sqlite: migrate %s to version %d: %w", d.path, i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations))); err != nil {
		return fmt.Errorf("sqlite: migrate %s: %w", d.path, err)
	}
	return tx.Commit()
}

// Close stops the keeper and closes the database.
func (d *DB) Close() error {
	d.once.Do(func() { close(d.stop) })
	<-d.kept
	d.stmts.advance.Close()
	d.stmts.insertOne.Close()
	return d.db.Close()
}

// SQL exposes the underlying handle (benchmarks compare against it).
func (d *DB) SQL() *sql.DB { return d.db }

// Events returns the EventStore over this database (without storeNow: see EventsWithClock).
func (d *DB) Events() *EventStore { return &EventStore{db: d.db, stmts: d.stmts} }

// EventsWithClock returns the EventStore over this database whose storeNow reads now (all processes
// sharing one file run on one host, so their clocks agree).
func (d *DB) EventsWithClock(now func() time.Time) *EventStore {
	return &EventStore{db: d.db, stmts: d.stmts, now: now}
}

// Snapshots returns the SnapshotStore over this database.
func (d *DB) Snapshots() *SnapshotStore { return &SnapshotStore{db: d.db} }

// Archive returns the ArchiveStore over this database.
func (d *DB) Archive() *ArchiveStore { return &ArchiveStore{db: d.db} }

// Branches returns the BranchRegistry over this database.
func (d *DB) Branches() *BranchRegistry { return &BranchRegistry{db: d.db} }

// Content returns the ContentStore over this database.
func (d *DB) Content() *ContentStore { return &ContentStore{db: d.db} }

// DurableState returns the DurableStateStore over this database.
func (d *DB) DurableState() *DurableStateStore { return &DurableStateStore{db: d.db} }

// ReadModels returns the ReadModelStore over this database.
func (d *DB) ReadModels() *ReadModelStore { return &ReadModelStore{db: d.db} }

func nullable(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	return string(raw)
}

// inTx runs f in a write transaction and commits it; any error rolls back.
func inTx(ctx context.Context, db *sql.DB, f func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
