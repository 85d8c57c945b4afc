package broken

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/loom-kernel/loom-conform/spi"
)

// tornState keeps each key's value and version in two places, written one after the other (the
// half-done set stays visible until a reader has looked).
type tornState struct {
	w        window
	mu       *sync.Mutex
	values   map[string]json.RawMessage
	versions map[string]int64
	next     *atomic.Int64
	// deleteFirst makes a set remove the key first, then write value and version together.
	deleteFirst bool
}

func newTornState(deleteFirst bool) tornState {
	return tornState{newWindow(), &sync.Mutex{}, map[string]json.RawMessage{}, map[string]int64{}, &atomic.Int64{}, deleteFirst}
}

func (s tornState) Get(ctx context.Context, key string) (e spi.StateEntry, err error) {
	s.w.read(func() { e, err = s.get(key) })
	return e, err
}

func (s tornState) get(key string) (spi.StateEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.values[key]
	if !ok {
		return spi.StateEntry{}, spi.ErrNotFound
	}
	return spi.StateEntry{Key: key, Value: bytes.Clone(v), Version: s.versions[key]}, nil
}

func (s tornState) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if err := spi.ValidateStateWrite("set", key, v, pre, true); err != nil {
		return 0, err
	}
	s.mu.Lock()
	cur := s.versions[key]
	if _, ok := s.values[key]; !ok {
		cur = 0
	}
	if !pre.Holds(cur) {
		s.mu.Unlock()
		return 0, spi.StateConflict(key, pre, cur)
	}
	n := s.next.Add(1)
	if cur == 0 {
		// A new key has no earlier state to tear.
		s.values[key], s.versions[key] = bytes.Clone(v), n
		s.mu.Unlock()
		return n, nil
	}
	if s.deleteFirst {
		delete(s.values, key)
		s.mu.Unlock()
		s.w.hold(ctx)
		s.mu.Lock()
		s.values[key], s.versions[key] = bytes.Clone(v), n
		s.mu.Unlock()
		return n, nil
	}
	s.values[key] = bytes.Clone(v)
	s.mu.Unlock()
	s.w.hold(ctx)
	s.mu.Lock()
	s.versions[key] = n
	s.mu.Unlock()
	return n, nil
}

func (s tornState) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	if err := spi.ValidateStateWrite("delete", key, nil, pre, false); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.versions[key]
	if _, ok := s.values[key]; !ok {
		cur = 0
	}
	if !pre.Holds(cur) {
		return spi.StateConflict(key, pre, cur)
	}
	delete(s.values, key)
	return nil
}
