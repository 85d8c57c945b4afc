package broken

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- a query's cursor is accepted for any model equal to its own under case folding (the cursor
// check alone compares models case-insensitively).
type cursorModelFolded struct{ rmTable }

func (s cursorModelFolded) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	if q.Cursor != "" {
		if _, err := spi.DecodeCursor(model, q.Cursor); err != nil {
			s.mu.Lock()
			var folded []string
			for m := range s.models {
				if strings.EqualFold(m, model) {
					folded = append(folded, m)
				}
			}
			s.mu.Unlock()
			for _, m := range folded {
				if after, err := spi.DecodeCursor(m, q.Cursor); err == nil {
					q.Cursor = spi.EncodeCursor(model, after)
					break
				}
			}
		}
	}
	return s.rmTable.Query(ctx, model, q)
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
