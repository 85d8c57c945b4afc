package broken

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

type rm struct{ *memory.ReadModelStore }

func newRM() rm { return rm{memory.NewReadModelStore()} }

// rmTable is a read model kept as plain maps, for broken stores whose paging differs from the
// reference's.
type rmTable struct {
	mu     *sync.Mutex
	models map[string]map[string]json.RawMessage
}

func newTable() rmTable {
	return rmTable{&sync.Mutex{}, map[string]map[string]json.RawMessage{}}
}

func (t rmTable) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if err := spi.ValidateUpsert(model, id, doc); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.models[model] == nil {
		t.models[model] = map[string]json.RawMessage{}
	}
	t.models[model][id] = append(json.RawMessage(nil), doc...)
	return nil
}

// sorted returns the model's documents ascending by id.
func (t rmTable) sorted(model string) []spi.ReadModelDoc {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []spi.ReadModelDoc{}
	for id, d := range t.models[model] {
		out = append(out, spi.ReadModelDoc{ID: id, Doc: d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Query pages the table as the reference does (keyset, exclusive, signed cursors), for broken
// stores whose defect is elsewhere.
func (t rmTable) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	docs, more := t.keyset(model, after, q.Limit, false)
	page := spi.ReadModelPage{Docs: append([]spi.ReadModelDoc{}, docs...)}
	if more {
		page.NextCursor = spi.EncodeCursor(model, docs[len(docs)-1].ID)
	}
	return page, nil
}

// --- offset cursors: a cursor is the number of documents already returned.
type offsetReadCursor struct{ rmTable }

func (s offsetReadCursor) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	if _, err := spi.ValidateQuery(model, spi.ReadModelQuery{Limit: q.Limit}); err != nil {
		return spi.ReadModelPage{}, err
	}
	off := 0
	if q.Cursor != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(q.Cursor, model+"@"))
		if err != nil || !strings.HasPrefix(q.Cursor, model+"@") || n < 0 {
			return spi.ReadModelPage{}, spi.Invalid("query", "cursor", "not issued here")
		}
		off = n
	}
	all := s.sorted(model)
	page := spi.ReadModelPage{Docs: []spi.ReadModelDoc{}}
	for i := off; i < len(all) && i < off+q.Limit; i++ {
		page.Docs = append(page.Docs, all[i])
	}
	if off+q.Limit < len(all) {
		page.NextCursor = fmt.Sprintf("%s@%d", model, off+q.Limit)
	}
	return page, nil
}

// keysetQuery pages with cursor after (exclusive unless inclusive), limit as given (0 = all).
func (t rmTable) keyset(model, after string, limit int, inclusive bool) ([]spi.ReadModelDoc, bool) {
	var out []spi.ReadModelDoc
	for _, d := range t.sorted(model) {
		if d.ID > after || (inclusive && d.ID == after) {
			out = append(out, d)
		}
	}
	if limit > 0 && len(out) > limit {
		return out[:limit], true
	}
	return out, false
}

// --- plain base64 of the last id: no checksum, no model.
type plainCursor struct{ rmTable }

func (s plainCursor) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	if _, err := spi.ValidateQuery(model, spi.ReadModelQuery{Limit: q.Limit}); err != nil {
		return spi.ReadModelPage{}, err
	}
	after := ""
	if q.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(q.Cursor)
		if err != nil {
			return spi.ReadModelPage{}, spi.Invalid("query", "cursor", "not base64")
		}
		after = string(b)
	}
	docs, more := s.keyset(model, after, q.Limit, false)
	page := spi.ReadModelPage{Docs: append([]spi.ReadModelDoc{}, docs...)}
	if more {
		page.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(docs[len(docs)-1].ID))
	}
	return page, nil
}

// --- cursors carry a checksum but not the model: any model accepts them.
type unboundCursor struct{ rmTable }

func (s unboundCursor) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	if _, err := spi.ValidateQuery(model, spi.ReadModelQuery{Limit: q.Limit}); err != nil {
		return spi.ReadModelPage{}, err
	}
	after := ""
	if q.Cursor != "" {
		a, err := spi.DecodeCursor("*", q.Cursor)
		if err != nil {
			return spi.ReadModelPage{}, err
		}
		after = a
	}
	docs, more := s.keyset(model, after, q.Limit, false)
	page := spi.ReadModelPage{Docs: append([]spi.ReadModelDoc{}, docs...)}
	if more {
		page.NextCursor = spi.EncodeCursor("*", docs[len(docs)-1].ID)
	}
	return page, nil
}

// --- the cursor is inclusive: each page repeats the last document of the one before.
type inclusiveCursor struct{ rmTable }

func (s inclusiveCursor) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	docs, more := s.keyset(model, after, q.Limit, after != "")
	page := spi.ReadModelPage{Docs: append([]spi.ReadModelDoc{}, docs...)}
	if more {
		page.NextCursor = spi.EncodeCursor(model, docs[len(docs)-1].ID)
	}
	return page, nil
}

// --- the limit is ignored: every page holds everything after the cursor.
type limitIgnored struct{ rmTable }

func (s limitIgnored) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	docs, _ := s.keyset(model, after, 0, false)
	return spi.ReadModelPage{Docs: append([]spi.ReadModelDoc{}, docs...)}, nil
}

// --- a zero or negative limit means the default page of 100; a huge one is clamped to 1000.
type limitClamped struct{ rm }

func (s limitClamped) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	switch {
	case q.Limit <= 0:
		q.Limit = 100
	case q.Limit > spi.ReadModelMaxLimit:
		q.Limit = spi.ReadModelMaxLimit
	}
	return s.rm.Query(ctx, model, q)
}

// --- only a huge limit is refused; 1001..2^31 are served.
type hugeLimitAccepted struct{ rmTable }

func (s hugeLimitAccepted) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	lim := q.Limit
	if lim > spi.ReadModelMaxLimit && lim <= 1<<31 {
		q.Limit = spi.ReadModelMaxLimit
	}
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	docs, more := s.keyset(model, after, q.Limit, false)
	page := spi.ReadModelPage{Docs: append([]spi.ReadModelDoc{}, docs...)}
	if more {
		page.NextCursor = spi.EncodeCursor(model, docs[len(docs)-1].ID)
	}
	return page, nil
}

// --- a full page never carries a next cursor: listings stop after the first page.
type noNextCursor struct{ rm }

func (s noNextCursor) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	p, err := s.rm.Query(ctx, model, q)
	p.NextCursor = ""
	return p, err
}

// --- a next cursor on every page, also the last (an empty page ends the listing).
type cursorPastEnd struct{ rmTable }

func (s cursorPastEnd) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	docs, _ := s.keyset(model, after, q.Limit, false)
	page := spi.ReadModelPage{Docs: append([]spi.ReadModelDoc{}, docs...)}
	if len(docs) > 0 {
		page.NextCursor = spi.EncodeCursor(model, docs[len(docs)-1].ID)
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

// --- documents pass through float64.
type lossyDocs struct{ rm }

func (s lossyDocs) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	var x any
	if json.Unmarshal(doc, &x) == nil {
		doc, _ = json.Marshal(x)
	}
	return s.rm.Upsert(ctx, model, id, doc)
}

// ReadModelStores are broken ReadModelStores, each with the check that must reject it.
func ReadModelStores() []Store[spi.ReadModelStore] {
	return []Store[spi.ReadModelStore]{
		{"offset-cursor", "cursors are offsets, so upserts before the position make a kept cursor skip and repeat", "readmodelstore/cursor-stale-resumes", func() spi.ReadModelStore { return offsetReadCursor{newTable()} }},
		{"forged-cursor-accepted", "cursors are the plain base64 of the last id, so an altered cursor reads from wherever it points", "readmodelstore/cursor-forged", func() spi.ReadModelStore { return plainCursor{newTable()} }},
		{"unsigned-cursor", "cursors are unsigned base64 of the model and the last id: the model is checked, but a client can point one at any id", "readmodelstore/cursor-forged", func() spi.ReadModelStore { return unsignedCursor{newTable()} }},
		{"foreign-cursor-accepted", "cursors are not bound to their model", "readmodelstore/cursor-foreign", func() spi.ReadModelStore { return unboundCursor{newTable()} }},
		{"inclusive-cursor", "a page starts at its cursor's id, repeating the last document of the page before", "readmodelstore/pagination", func() spi.ReadModelStore { return inclusiveCursor{newTable()} }},
		{"limit-ignored", "the limit is ignored and a page holds everything after the cursor", "readmodelstore/pagination", func() spi.ReadModelStore { return limitIgnored{newTable()} }},
		{"limit-clamped", "a zero or negative limit takes a default page and a huge one is clamped", "readmodelstore/limit-invalid", func() spi.ReadModelStore { return limitClamped{newRM()} }},
		{"limit-above-max-accepted", "limits between 1001 and 2^31 are served as 1000", "readmodelstore/limit-invalid", func() spi.ReadModelStore { return hugeLimitAccepted{newTable()} }},
		{"no-next-cursor", "full pages carry no next cursor, so a listing ends after its first page", "readmodelstore/pagination", func() spi.ReadModelStore { return noNextCursor{newRM()} }},
		{"cursor-past-end", "every non-empty page carries a next cursor, also the last", "readmodelstore/pagination", func() spi.ReadModelStore { return cursorPastEnd{newTable()} }},
		{"model-prefix", "a query lists the documents of every model whose name begins with the one asked for", "readmodelstore/model-isolation", func() spi.ReadModelStore { return modelPrefix{newTable()} }},
		{"lossy-numbers", "documents pass through float64", "readmodelstore/roundtrip-precision", func() spi.ReadModelStore { return lossyDocs{newRM()} }},
	}
}

// --- cursors are base64 of {"m": model, "a": last id} with nothing signing them: the model is
// checked, but a client can rewrite "a" to resume anywhere.
type unsignedCursor struct{ rmTable }

type unsignedBody struct {
	Model string `json:"m"`
	After string `json:"a"`
}

func (s unsignedCursor) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	if _, err := spi.ValidateQuery(model, spi.ReadModelQuery{Limit: q.Limit}); err != nil {
		return spi.ReadModelPage{}, err
	}
	after := ""
	if q.Cursor != "" {
		raw, err := base64.StdEncoding.DecodeString(q.Cursor)
		var b unsignedBody
		if err != nil || json.Unmarshal(raw, &b) != nil || b.After == "" {
			return spi.ReadModelPage{}, spi.Invalid("query", "cursor", "not a cursor")
		}
		if b.Model != model {
			return spi.ReadModelPage{}, spi.Invalid("query", "cursor", "issued for another model")
		}
		after = b.After
	}
	docs, more := s.keyset(model, after, q.Limit, false)
	page := spi.ReadModelPage{Docs: append([]spi.ReadModelDoc{}, docs...)}
	if more {
		body, _ := json.Marshal(unsignedBody{model, docs[len(docs)-1].ID})
		page.NextCursor = base64.StdEncoding.EncodeToString(body)
	}
	return page, nil
}
