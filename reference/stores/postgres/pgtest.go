package postgres

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/testenv"
)

// DSNEnv is the environment variable tests read the PostgreSQL DSN from (scripts/pg-start.sh sets it).
const DSNEnv = "LOOM_CONFORM_POSTGRES_DSN"

// TestDSN returns the DSN for tests. Without one, under CI=true the test fails; otherwise it is
// skipped with a message saying how to enable it.
func TestDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn != "" {
		return dsn
	}
	testenv.Missing(t, fmt.Sprintf("PostgreSQL: set %s (eval \"$(scripts/pg-start.sh)\"; stop with scripts/pg-stop.sh)", DSNEnv))
	return ""
}

var schemaCounter atomic.Int64

// UniqueSchema returns a schema name unique to this process and call, so parallel test packages and
// runs never collide.
func UniqueSchema(prefix string) string {
	return fmt.Sprintf("%s_%d_%d_%d", prefix, os.Getpid(), time.Now().UnixNano()%1_000_000_000, schemaCounter.Add(1))
}

// OpenTemp opens a fresh schema on dsn and returns the DB and a cleanup that drops the schema.
func OpenTemp(ctx context.Context, dsn, prefix string) (*DB, func(), error) {
	db, err := Open(ctx, dsn, UniqueSchema(prefix))
	if err != nil {
		return nil, nil, err
	}
	return db, func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = db.DropSchema(cctx)
		db.Close()
	}, nil
}
