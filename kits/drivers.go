package kits

import (
	"testing"

	"github.com/loom-kernel/loom-conform/spi"
)

// EventStore runs the EventStore kit as subtests of t (one per check id, fresh store each).
func EventStore(t *testing.T, factory Factory[spi.EventStore]) {
	t.Helper()
	RunT(t, EventStoreKit(), factory, Options{})
}
