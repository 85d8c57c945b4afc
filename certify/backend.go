package certify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/internal/redact"
	"github.com/loom-kernel/loom-conform/internal/shq"
	dispmem "github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	dispatchpg "github.com/loom-kernel/loom-conform/reference/dispatch/postgres"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/reference/stores/sqlite"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Backend names one of the project's own stores: memory, sqlite (File, a temporary file when
// empty) or postgres (DSN, Schema; a temporary schema, dropped on close, when empty).
type Backend struct {
	Name   string
	File   string
	DSN    string
	Schema string
	// Version is the implementation version the bridge's handshake reports.
	Version string
}

// Backends lists the names OpenBackend accepts.
func Backends() []string { return []string{"memory", "sqlite", "postgres"} }

// OpenBackend opens the backend's seven stores for a bridge server. close releases them (and
// removes a temporary SQLite file).
func OpenBackend(ctx context.Context, b Backend) (bridge.Stores, func(), error) {
	o, err := openBackend(ctx, b)
	return o.stores, o.close, err
}

// openedBackend is an open backend: its stores, how to release them, and how to tell whether the
// parts it depends on are up (nil for in-process stores, which have none to lose).
type openedBackend struct {
	stores bridge.Stores
	close  func()
	alive  func(ctx context.Context) error
}

func openBackend(ctx context.Context, b Backend) (openedBackend, error) {
	stores, closer, alive, err := openBackendParts(ctx, b)
	return openedBackend{stores, closer, alive}, err
}

func openBackendParts(ctx context.Context, b Backend) (bridge.Stores, func(), func(context.Context) error, error) {
	impl := bridge.Implementation{Name: "loom-conform " + b.Name, Version: b.Version}
	if impl.Version == "" {
		impl.Version = "dev"
	}
	if strings.HasPrefix(b.Name, "broken:") {
		st, _, err := brokenBackend(b.Name)
		return st, func() {}, nil, err
	}
	switch b.Name {
	case "memory":
		return bridge.Stores{Implementation: impl, EventStore: memory.NewEventStore(), SnapshotStore: memory.NewSnapshotStore(),
			ArchiveStore: memory.NewArchiveStore(), BranchRegistry: memory.NewBranchRegistry(),
			Dispatcher:   dispmem.New(dispmem.Config{Targets: []string{"default"}}),
			ContentStore: memory.NewContentStore(), DurableStateStore: memory.NewDurableStateStore(),
			ReadModelStore: memory.NewReadModelStore()}, func() {}, nil, nil
	case "sqlite":
		file, cleanup := b.File, func() {}
		if file == "" {
			dir, err := os.MkdirTemp("", "loom-sqlite-")
			if err != nil {
				return bridge.Stores{}, nil, nil, fmt.Errorf("sqlite backend: %w", err)
			}
			file, cleanup = filepath.Join(dir, "loom.db"), func() { _ = os.RemoveAll(dir) }
		}
		db, err := sqlite.Open(ctx, file)
		if err != nil {
			cleanup()
			return bridge.Stores{}, nil, nil, err
		}
		return bridge.Stores{Implementation: impl, EventStore: db.Events(), SnapshotStore: db.Snapshots(),
			ArchiveStore: db.Archive(), BranchRegistry: db.Branches(), ContentStore: db.Content(),
			DurableStateStore: db.DurableState(), ReadModelStore: db.ReadModels()}, func() { _ = db.Close(); cleanup() }, nil, nil
	case "postgres":
		if b.DSN == "" {
			return bridge.Stores{}, nil, nil, fmt.Errorf("postgres backend: a DSN is required (--dsn)")
		}
		schema, temporary := b.Schema, b.Schema == ""
		if temporary {
			// A schema of its own, dropped afterwards: a rerun with the same seed must not meet
			// the executions of an earlier run.
			schema = postgres.UniqueSchema("loom_certify")
		}
		db, err := postgres.Open(ctx, b.DSN, schema)
		if err != nil {
			return bridge.Stores{}, nil, nil, err
		}
		closeDB := func() {
			if temporary {
				dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_ = db.DropSchema(dctx)
				cancel()
			}
			db.Close()
		}
		d, err := dispatchpg.New(ctx, db.Pool(), []string{"default"})
		if err != nil {
			closeDB()
			return bridge.Stores{}, nil, nil, err
		}
		return bridge.Stores{Implementation: impl, EventStore: db.Events(), SnapshotStore: db.Snapshots(),
			Dispatcher:   d,
			ArchiveStore: db.Archive(), BranchRegistry: db.Branches(), ContentStore: db.Content(),
			DurableStateStore: db.DurableState(), ReadModelStore: db.ReadModels()}, closeDB, databaseAlive(db.Pool(), b.DSN), nil
	}
	return bridge.Stores{}, nil, nil, fmt.Errorf("unknown backend %q (want one of %s)", b.Name, strings.Join(Backends(), ", "))
}

// BuiltinTarget certifies one of the project's own stores end to end: it is served by an
// in-process bridge on a loopback port and certified through the wire like any other target.
type BuiltinTarget struct{ Backend Backend }

func (t BuiltinTarget) Describe() Identity {
	if t.Backend.Name == "postgres" {
		return Identity{Kind: "dsn", Spec: redact.DSN(t.Backend.DSN), Flag: "--dsn " + dsnArg(t.Backend.DSN)}
	}
	return Identity{Kind: "builtin", Spec: t.Backend.Name, Flag: "--builtin " + t.Backend.Name}
}

func (t BuiltinTarget) Start(ctx context.Context) (*Running, error) {
	opened, err := openBackend(ctx, t.Backend)
	if err != nil {
		return nil, err
	}
	return serveInProcess(opened.stores, t.Describe(), opened.close, opened.alive)
}

// databaseAlive pings the database behind a PostgreSQL backend: an error names the database (its
// DSN with the password hidden) and why it does not answer (scrubbed: a driver's message may quote
// what a first-'@' parse made of the password).
func databaseAlive(pool interface{ Ping(context.Context) error }, dsn string) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := pool.Ping(ctx); err != nil {
			return redact.New(dsn).Error(fmt.Errorf("the database %s does not answer: %v", redact.DSN(dsn), err))
		}
		return nil
	}
}

// dsnArg is the --dsn value of a reproducing command: the DSN itself when it holds no password,
// else the environment variable that conventionally holds it (the password is never printed).
func dsnArg(dsn string) string {
	if redact.DSN(dsn) != dsn {
		return `"$` + postgres.DSNEnv + `"`
	}
	return shq.Quote(dsn)
}
