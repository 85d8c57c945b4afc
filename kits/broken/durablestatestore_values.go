package broken

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- values pass through float64.
type lossyDurable struct{ ds }

func (s lossyDurable) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	var x any
	if json.Unmarshal(v, &x) == nil {
		v, _ = json.Marshal(x)
	}
	return s.ds.Set(ctx, key, v, pre)
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

// --- an unconditional set of a value equal to the stored one through float64 writes nothing.
type setSkipsFloatEqual struct{ ds }

func (s setSkipsFloatEqual) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if cur, err := s.ds.Get(ctx, key); err == nil && pre.Holds(cur.Version) && sameThroughFloat(cur.Value, v) {
		return cur.Version, nil
	}
	return s.ds.Set(ctx, key, v, pre)
}

// --- an object set on a stored object is merged into it, top-level keys of the new one winning.
type setMergesObjects struct {
	ds
	mu *sync.Mutex
}

func (s setMergesObjects) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, err := s.ds.Get(ctx, key); err == nil {
		v = mergeObjects(cur.Value, v)
	}
	return s.ds.Set(ctx, key, v, pre)
}

// --- integers are read into int64: one beyond int64, which a double holds, wraps around.
type int64Values struct{ ds }

func (s int64Values) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	return s.ds.Set(ctx, key, wrapInt64(v), pre)
}
