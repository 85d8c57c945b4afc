package broken

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

type ds struct{ *memory.DurableStateStore }

func newDS() ds { return ds{memory.NewDurableStateStore()} }

// --- the precondition is ignored: every set is last-write-wins.
type lastWriteWins struct{ ds }

func (s lastWriteWins) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	return s.ds.Set(ctx, key, v, spi.Precondition{})
}

// --- check-then-act: the version is compared, then the write happens outside the lock.
type checkThenSet struct {
	ds
	mu *sync.Mutex
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
		yield()
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

// --- values pass through float64.
type lossyDurable struct{ ds }

func (s lossyDurable) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	var x any
	if json.Unmarshal(v, &x) == nil {
		v, _ = json.Marshal(x)
	}
	return s.ds.Set(ctx, key, v, pre)
}

// --- keys are folded to lower case (a case-insensitive collation).
type caseFoldedKeys struct{ ds }

func (s caseFoldedKeys) Get(ctx context.Context, key string) (spi.StateEntry, error) {
	e, err := s.ds.Get(ctx, strings.ToLower(key))
	e.Key = key
	return e, err
}

func (s caseFoldedKeys) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	return s.ds.Set(ctx, strings.ToLower(key), v, pre)
}

func (s caseFoldedKeys) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	return s.ds.Delete(ctx, strings.ToLower(key), pre)
}

// --- get of an absent key returns a null value at version 0 and no error.
type nullForAbsent struct{ ds }

func (s nullForAbsent) Get(ctx context.Context, key string) (spi.StateEntry, error) {
	e, err := s.ds.Get(ctx, key)
	if errors.Is(err, spi.ErrNotFound) {
		return spi.StateEntry{Key: key, Value: json.RawMessage(`null`)}, nil
	}
	return e, err
}

// --- an empty key and non-JSON values are stored as given.
type acceptsInvalid struct{ ds }

func (s acceptsInvalid) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if key == "" || !json.Valid(v) {
		return 1, nil
	}
	return s.ds.Set(ctx, key, v, pre)
}

// --- the version returned by set is the one before the write.
type staleVersionReturned struct{ ds }

func (s staleVersionReturned) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	n, err := s.ds.Set(ctx, key, v, pre)
	return n - 1, err
}

// DurableStateStores are broken DurableStateStores, each with the check that must reject it.
func DurableStateStores() []Store[spi.DurableStateStore] {
	return []Store[spi.DurableStateStore]{
		{"last-write-wins", "the version precondition is ignored", "durablestatestore/conditional-set", func() spi.DurableStateStore { return lastWriteWins{newDS()} }},
		{"lost-update", "check-then-act compare-and-set: racing increments overwrite each other", "durablestatestore/no-lost-update", func() spi.DurableStateStore { return checkThenSet{newDS(), &sync.Mutex{}} }},
		{"create-overwrites", "a create-only set (ifVersion 0) overwrites a present key", "durablestatestore/conditional-set", func() spi.DurableStateStore { return createOverwrites{newDS()} }},
		{"version-restarts", "versions restart at 1 after a delete, so a version read before it matches again (ABA)", "durablestatestore/versions-not-reused", func() spi.DurableStateStore {
			return versionRestarts{&sync.Mutex{}, map[string]spi.StateEntry{}}
		}},
		{"delete-ignores-condition", "a conditional delete on a stale version deletes", "durablestatestore/delete", func() spi.DurableStateStore { return deleteIgnoresCondition{newDS()} }},
		{"conflict-still-writes", "a refused conditional set reports the conflict but writes the value", "durablestatestore/conditional-set", func() spi.DurableStateStore {
			return conflictStillWrites{newDS(), &sync.Mutex{}}
		}},
		{"lossy-numbers", "values pass through float64", "durablestatestore/roundtrip-precision", func() spi.DurableStateStore { return lossyDurable{newDS()} }},
		{"case-folded-keys", "keys are folded to lower case, so keys differing by case share a value", "durablestatestore/key-isolation", func() spi.DurableStateStore { return caseFoldedKeys{newDS()} }},
		{"null-for-absent", "get of an absent key returns null at version 0 and no error", "durablestatestore/get-unknown", func() spi.DurableStateStore { return nullForAbsent{newDS()} }},
		{"accepts-invalid", "an empty key and non-JSON values are accepted", "durablestatestore/invalid", func() spi.DurableStateStore { return acceptsInvalid{newDS()} }},
		{"stale-version-returned", "set returns the version before the write, not the new one", "durablestatestore/set-get", func() spi.DurableStateStore { return staleVersionReturned{newDS()} }},
	}
}

// yield widens the window between a check and its act, as a network round trip would.
func yield() { time.Sleep(time.Millisecond) }
