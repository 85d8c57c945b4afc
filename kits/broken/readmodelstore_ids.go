package broken

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- trailing spaces of ids are dropped.
type idsTrimmed struct{ rm }

func (s idsTrimmed) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if t := strings.TrimRight(id, " "); t != "" {
		id = t
	}
	return s.rm.Upsert(ctx, model, id, doc)
}

// --- model names are normalised (the one decomposed form the kit uses is composed).
type modelsNormalised struct{ rm }

func (s modelsNormalised) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	return s.rm.Upsert(ctx, nfc(model), id, doc)
}

func (s modelsNormalised) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	return s.rm.Query(ctx, nfc(model), q)
}

// --- documents keyed <model>:<id> in one table: (m, "a:x") and ("m:a", "x") are one row, and a
// query of m scans the key prefix "m:", listing the documents of m:a too.
type modelIDJoined struct {
	mu   *sync.Mutex
	rows map[string]json.RawMessage
}

func newModelIDJoined() modelIDJoined {
	return modelIDJoined{&sync.Mutex{}, map[string]json.RawMessage{}}
}

func (s modelIDJoined) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if err := spi.ValidateUpsert(model, id, doc); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows[model+":"+id] = append(json.RawMessage(nil), doc...)
	return nil
}

func (s modelIDJoined) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	s.mu.Lock()
	var docs []spi.ReadModelDoc
	for k, d := range s.rows {
		if id, ok := strings.CutPrefix(k, model+":"); ok && id > after {
			docs = append(docs, spi.ReadModelDoc{ID: id, Doc: d})
		}
	}
	s.mu.Unlock()
	sort.Slice(docs, func(i, j int) bool { return docs[i].ID < docs[j].ID })
	page := spi.ReadModelPage{Docs: []spi.ReadModelDoc{}}
	for _, d := range docs {
		if len(page.Docs) == q.Limit {
			page.NextCursor = spi.EncodeCursor(model, page.Docs[len(page.Docs)-1].ID)
			break
		}
		page.Docs = append(page.Docs, d)
	}
	return page, nil
}

// --- models are matched by prefix: a model lists the documents of every model its name begins.
type modelPrefix struct{ rmTable }

func (s modelPrefix) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	s.mu.Lock()
	var names []string
	for m := range s.models {
		if strings.HasPrefix(m, model) {
			names = append(names, m)
		}
	}
	s.mu.Unlock()
	merged := map[string]json.RawMessage{}
	for _, m := range names {
		for _, d := range s.sorted(m) {
			if _, ok := merged[d.ID]; !ok || m == model {
				merged[d.ID] = d.Doc
			}
		}
	}
	var ids []string
	for id := range merged {
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
		page.Docs = append(page.Docs, spi.ReadModelDoc{ID: id, Doc: merged[id]})
	}
	return page, nil
}
