package broken

import (
	"context"
	"errors"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- a conditional delete reads the key's version, compares it, then deletes unconditionally in a
// second statement (a natural or round-trip window between them), so a set on the same version that lands
// between them succeeds and is then deleted.
type deleteCheckThenDelete struct {
	ds
	pace pace
}

func (s deleteCheckThenDelete) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	if pre.IfVersion == nil || key == "" {
		return s.ds.Delete(ctx, key, pre)
	}
	cur, err := s.ds.Get(ctx, key)
	if err != nil && !errors.Is(err, spi.ErrNotFound) {
		return err
	}
	if cur.Version != *pre.IfVersion {
		return spi.StateConflict(key, pre, cur.Version)
	}
	gap(s.pace, yield)
	return s.ds.Delete(ctx, key, spi.Precondition{})
}
