package broken

import (
	"context"
	"fmt"
	"sort"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- ids ordered by a collation (less) other than byte order, cursors compared the same way.
type idsCollated struct {
	rmTable
	less func(a, b string) bool
}

func (s idsCollated) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	all := s.sorted(model)
	sort.SliceStable(all, func(i, j int) bool { return s.less(all[i].ID, all[j].ID) })
	page := spi.ReadModelPage{Docs: []spi.ReadModelDoc{}}
	for _, d := range all {
		if after != "" && !s.less(after, d.ID) {
			continue
		}
		if len(page.Docs) == q.Limit {
			page.NextCursor = spi.EncodeCursor(model, page.Docs[len(page.Docs)-1].ID)
			break
		}
		page.Docs = append(page.Docs, d)
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
// --- the store's largest page is 100 documents: a larger limit is refused as an invalid argument.
type smallMaxLimit struct{ rmTable }

func (s smallMaxLimit) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	if q.Limit > 100 {
		return spi.ReadModelPage{}, fmt.Errorf("limit %d: the largest page is 100 documents: %w", q.Limit, spi.ErrInvalidArgument)
	}
	return s.rmTable.Query(ctx, model, q)
}

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
