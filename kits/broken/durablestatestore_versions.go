package broken

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- the precondition is ignored: every set is last-write-wins.
type lastWriteWins struct{ ds }

func (s lastWriteWins) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	return s.ds.Set(ctx, key, v, spi.Precondition{})
}

// --- check-then-act: the version is compared, then the write happens outside the lock.
type checkThenSet struct {
	ds
	mu   *sync.Mutex
	pace pace // how the window opens (see gap)
}

func (s checkThenSet) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if pre.IfVersion != nil {
		cur, err := s.ds.Get(ctx, key)
		if err != nil && !errors.Is(err, spi.ErrNotFound) {
			return 0, err
		}
		if cur.Version != *pre.IfVersion {
			return 0, spi.StateConflict(key, pre, cur.Version)
		}
		gap(s.pace, yield)
	}
	return s.ds.Set(ctx, key, v, spi.Precondition{})
}

// --- create-only (ifVersion 0) overwrites a present key.
type createOverwrites struct{ ds }

func (s createOverwrites) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if pre.IfVersion != nil && *pre.IfVersion == 0 {
		pre = spi.Precondition{}
	}
	return s.ds.Set(ctx, key, v, pre)
}

// --- versions restart at 1 after a delete (ABA).
type versionRestarts struct {
	mu      *sync.Mutex
	entries map[string]spi.StateEntry
}

func (s versionRestarts) Get(ctx context.Context, key string) (spi.StateEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[key]
	if !ok {
		return e, spi.ErrNotFound
	}
	return e, nil
}

func (s versionRestarts) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if err := spi.ValidateStateWrite("set", key, v, pre, true); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.entries[key].Version
	if !pre.Holds(cur) {
		return 0, spi.StateConflict(key, pre, cur)
	}
	s.entries[key] = spi.StateEntry{Key: key, Value: append(json.RawMessage(nil), v...), Version: cur + 1}
	return cur + 1, nil
}

func (s versionRestarts) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	if err := spi.ValidateStateWrite("delete", key, nil, pre, false); err != nil {
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

// --- delete ignores its precondition.
type deleteIgnoresCondition struct{ ds }

func (s deleteIgnoresCondition) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	return s.ds.Delete(ctx, key, spi.Precondition{})
}

// --- a refused conditional set still writes the value (and then reports the conflict).
type conflictStillWrites struct {
	ds
	mu *sync.Mutex
}

func (s conflictStillWrites) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.ds.Set(ctx, key, v, pre)
	if errors.Is(err, spi.ErrConflict) {
		_, _ = s.ds.Set(ctx, key, v, spi.Precondition{})
	}
	return n, err
}

// --- the version returned by set is the one before the write.
type staleVersionReturned struct{ ds }

func (s staleVersionReturned) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	n, err := s.ds.Set(ctx, key, v, pre)
	return n - 1, err
}

// --- an unconditional delete of an absent key answers not found; a choice the spec leaves open
// (I-PLUGIN-18).
type deleteAbsentStateNotFound struct{ ds }

func (s deleteAbsentStateNotFound) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	if _, err := s.ds.Get(ctx, key); key != "" && errors.Is(err, spi.ErrNotFound) && pre == (spi.Precondition{}) {
		return spi.ErrNotFound
	}
	return s.ds.Delete(ctx, key, pre)
}

// --- a set compares its version condition before it looks at the key, so a set with an empty key
// on a version is a conflict, not an invalid argument.
type conflictBeforeArgument struct{ ds }

func (s conflictBeforeArgument) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if pre.IfVersion != nil && *pre.IfVersion > 0 {
		if cur, err := s.ds.Get(ctx, key); err != nil || cur.Version != *pre.IfVersion {
			return 0, spi.StateConflict(key, pre, cur.Version)
		}
	}
	return s.ds.Set(ctx, key, v, pre)
}
