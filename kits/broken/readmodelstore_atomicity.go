package broken

import (
	"context"
	"encoding/json"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- an upsert of a stored id deletes it first, then inserts (the gap stays visible until a
// reader has looked).
type upsertDeleteThenInsert struct {
	rmTable
	w window
}

func (s upsertDeleteThenInsert) Query(ctx context.Context, model string, q spi.ReadModelQuery) (p spi.ReadModelPage, err error) {
	s.w.read(func() { p, err = s.rmTable.Query(ctx, model, q) })
	return p, err
}

func (s upsertDeleteThenInsert) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if err := spi.ValidateUpsert(model, id, doc); err != nil {
		return err
	}
	s.mu.Lock()
	_, ok := s.models[model][id]
	delete(s.models[model], id)
	s.mu.Unlock()
	if ok {
		s.w.hold(ctx)
	}
	return s.rmTable.Upsert(ctx, model, id, doc)
}
