package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// ReadModelStore is the in-memory ReadModelStore.
type ReadModelStore struct {
	mu     sync.Mutex
	models map[string]map[string]json.RawMessage
}

// NewReadModelStore returns an empty store.
func NewReadModelStore() *ReadModelStore {
	return &ReadModelStore{models: map[string]map[string]json.RawMessage{}}
}

// ReadModelStoreSpiVersion claims the current ReadModelStore SPI.
func (s *ReadModelStore) ReadModelStoreSpiVersion() string { return manifest.ReadModelStoreSpiVersion }

// Upsert implements spi.ReadModelStore.
func (s *ReadModelStore) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if err := spi.ValidateUpsert(model, id, doc); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.models[model]
	if m == nil {
		m = map[string]json.RawMessage{}
		s.models[model] = m
	}
	m[id] = bytes.Clone(doc)
	return nil
}

// Query implements spi.ReadModelStore.
func (s *ReadModelStore) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	if err := ctx.Err(); err != nil {
		return spi.ReadModelPage{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.models[model] {
		if id > after {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	page := spi.ReadModelPage{Docs: []spi.ReadModelDoc{}}
	for i, id := range ids {
		if i == q.Limit {
			page.NextCursor = spi.EncodeCursor(model, ids[i-1])
			break
		}
		page.Docs = append(page.Docs, spi.ReadModelDoc{ID: id, Doc: bytes.Clone(s.models[model][id])})
	}
	return page, nil
}
