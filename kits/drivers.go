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

// SnapshotStore runs the SnapshotStore kit as subtests of t.
func SnapshotStore(t *testing.T, factory Factory[spi.SnapshotStore]) {
	t.Helper()
	RunT(t, SnapshotStoreKit(), factory, Options{})
}

// ArchiveStore runs the ArchiveStore kit as subtests of t.
func ArchiveStore(t *testing.T, factory Factory[spi.ArchiveStore]) {
	t.Helper()
	RunT(t, ArchiveStoreKit(), factory, Options{})
}

// BranchRegistry runs the BranchRegistry kit as subtests of t.
func BranchRegistry(t *testing.T, factory Factory[spi.BranchRegistry]) {
	t.Helper()
	RunT(t, BranchRegistryKit(), factory, Options{})
}

// ContentStore runs the ContentStore kit as subtests of t.
func ContentStore(t *testing.T, factory Factory[spi.ContentStore]) {
	t.Helper()
	RunT(t, ContentStoreKit(), factory, Options{})
}

// DurableStateStore runs the DurableStateStore kit as subtests of t.
func DurableStateStore(t *testing.T, factory Factory[spi.DurableStateStore]) {
	t.Helper()
	RunT(t, DurableStateStoreKit(), factory, Options{})
}

// ReadModelStore runs the ReadModelStore kit as subtests of t.
func ReadModelStore(t *testing.T, factory Factory[spi.ReadModelStore]) {
	t.Helper()
	RunT(t, ReadModelStoreKit(), factory, Options{})
}
