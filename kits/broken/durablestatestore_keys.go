package broken

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- delete removes every key equal to the one named under case folding.
type deleteFoldsCaseDS struct {
	ds
	idx *keyIndex
}

func (s deleteFoldsCaseDS) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	n, err := s.ds.Set(ctx, key, v, pre)
	if err == nil {
		s.idx.set(key, true)
	}
	return n, err
}

func (s deleteFoldsCaseDS) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	if err := s.ds.Delete(ctx, key, pre); err != nil {
		return err
	}
	for _, k := range append(s.idx.folded(key), key) {
		_ = s.ds.Delete(ctx, k, spi.Precondition{})
		s.idx.set(k, false)
	}
	return nil
}

// --- a create-only set is refused when any key equal under case folding is present.
type createCheckFoldsCase struct {
	ds
	idx *keyIndex
}

func (s createCheckFoldsCase) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if pre.IfVersion != nil && *pre.IfVersion == 0 {
		if held := s.idx.folded(key); len(held) > 0 {
			cur, _ := s.ds.Get(ctx, held[0])
			return 0, spi.StateConflict(key, pre, cur.Version)
		}
	}
	n, err := s.ds.Set(ctx, key, v, pre)
	if err == nil {
		s.idx.set(key, true)
	}
	return n, err
}

func (s createCheckFoldsCase) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	err := s.ds.Delete(ctx, key, pre)
	if err == nil {
		s.idx.set(key, false)
	}
	return err
}

// --- durable-state keys pass through key on one method only (method: get, set, set-if,
// delete or delete-if), as a store whose one statement uses another collation does; on every
// method when method is "" (a case-insensitive collation, a column cut to 255 bytes, key names
// built by substituting "_" for the characters a key language does not allow).
type dsKeyedOn struct {
	ds
	method string
	key    func(string) string
}

func (s dsKeyedOn) on(m, key string) string {
	if s.method == "" || m == s.method {
		return s.key(key)
	}
	return key
}

func conditional(m string, pre spi.Precondition) string {
	if pre.IfVersion != nil {
		return m + "-if"
	}
	return m
}

func (s dsKeyedOn) Get(ctx context.Context, key string) (spi.StateEntry, error) {
	e, err := s.ds.Get(ctx, s.on("get", key))
	e.Key = key
	return e, err
}

func (s dsKeyedOn) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	return s.ds.Set(ctx, s.on(conditional("set", pre), key), v, pre)
}

func (s dsKeyedOn) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	return s.ds.Delete(ctx, s.on(conditional("delete", pre), key), pre)
}

// --- a key deleted is kept as a tombstone with its last version, and a condition is compared
// with that version, so a write on the version read before the delete is applied after it.
type tombstoneVersions struct {
	ds
	mu    *sync.Mutex
	tombs map[string]int64
}

func (s tombstoneVersions) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	e, err := s.ds.Get(ctx, key)
	if err := s.ds.Delete(ctx, key, pre); err != nil {
		return err
	}
	if err == nil {
		s.mu.Lock()
		s.tombs[key] = e.Version
		s.mu.Unlock()
	}
	return nil
}

func (s tombstoneVersions) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	s.mu.Lock()
	tomb, dead := s.tombs[key]
	s.mu.Unlock()
	if dead && pre.IfVersion != nil && *pre.IfVersion == tomb {
		if _, err := s.ds.Get(ctx, key); errors.Is(err, spi.ErrNotFound) {
			pre = spi.IfVersion(0)
		}
	}
	n, err := s.ds.Set(ctx, key, v, pre)
	if err == nil {
		s.mu.Lock()
		delete(s.tombs, key)
		s.mu.Unlock()
	}
	return n, err
}
