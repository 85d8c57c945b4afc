package broken

import (
	"context"
	"encoding/json"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- an object upserted on a stored object is merged into it.
type upsertMerges struct{ rmTable }

func (s upsertMerges) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if err := spi.ValidateUpsert(model, id, doc); err != nil {
		return err
	}
	s.mu.Lock()
	old, ok := s.models[model][id]
	s.mu.Unlock()
	if ok {
		doc = mergeObjects(old, doc)
	}
	return s.rmTable.Upsert(ctx, model, id, doc)
}

// --- an upsert equal to the stored document through float64 writes nothing.
type upsertSkipsFloatEqual struct{ rmTable }

func (s upsertSkipsFloatEqual) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	s.mu.Lock()
	old, ok := s.models[model][id]
	s.mu.Unlock()
	if ok && sameThroughFloat(old, doc) {
		return nil
	}
	return s.rmTable.Upsert(ctx, model, id, doc)
}

// --- documents pass through float64.
type lossyDocs struct{ rm }

func (s lossyDocs) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	var x any
	if json.Unmarshal(doc, &x) == nil {
		doc, _ = json.Marshal(x)
	}
	return s.rm.Upsert(ctx, model, id, doc)
}

// --- documents are re-encoded through another JSON library on upsert (empty arrays as objects,
// numbers printed with 14 digits).
type documentsReencoded struct{ rm }

func (s documentsReencoded) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	return s.rm.Upsert(ctx, model, id, reencodeLuaStyle(doc))
}
