package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// DurableStateStore is the in-memory DurableStateStore.
type DurableStateStore struct {
	mu      sync.Mutex
	entries map[string]spi.StateEntry
	// last is the highest version each key ever had, kept across deletes so versions are never
	// reused (I-PLUGIN-6).
	last map[string]int64
}

// NewDurableStateStore returns an empty store.
func NewDurableStateStore() *DurableStateStore {
	return &DurableStateStore{entries: map[string]spi.StateEntry{}, last: map[string]int64{}}
}

// DurableStateStoreSpiVersion claims the current DurableStateStore SPI.
func (s *DurableStateStore) DurableStateStoreSpiVersion() string {
	return manifest.DurableStateStoreSpiVersion
}

// Get implements spi.DurableStateStore.
func (s *DurableStateStore) Get(ctx context.Context, key string) (spi.StateEntry, error) {
	if err := ctx.Err(); err != nil {
		return spi.StateEntry{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[key]
	if !ok {
		return spi.StateEntry{}, spi.ErrNotFound
	}
	e.Value = bytes.Clone(e.Value)
	return e, nil
}

// Set implements spi.DurableStateStore.
func (s *DurableStateStore) Set(ctx context.Context, key string, value json.RawMessage, pre spi.Precondition) (int64, error) {
	if err := spi.ValidateStateWrite("set", key, value, pre, true); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.entries[key].Version
	if !pre.Holds(cur) {
		return 0, spi.StateConflict(key, pre, cur)
	}
	v := s.last[key] + 1
	s.last[key] = v
	s.entries[key] = spi.StateEntry{Key: key, Value: bytes.Clone(value), Version: v}
	return v, nil
}

// Delete implements spi.DurableStateStore.
func (s *DurableStateStore) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	if err := spi.ValidateStateWrite("delete", key, nil, pre, false); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.entries[key].Version
	if !pre.Holds(cur) {
		return spi.StateConflict(key, pre, cur)
	}
	delete(s.entries, key)
	return nil
}
