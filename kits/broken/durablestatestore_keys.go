package broken

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

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
// delete or delete-if), as a store whose one statement uses another collation does.
type dsKeyedOn struct {
	ds
	method string
	key    func(string) string
}

func (s dsKeyedOn) on(m, key string) string {
	if m == s.method {
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
