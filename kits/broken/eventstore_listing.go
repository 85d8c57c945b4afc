package broken

import (
	"context"
	"sort"
	"strconv"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- paging by offset: concurrent inserts shift the window, so ids repeat or are skipped.
type offsetCursor struct{ es }

func (s offsetCursor) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	if limit < 1 {
		return spi.Page{}, spi.Invalid("listExecutionsPage", "limit", "%d is below 1", limit)
	}
	all, err := s.es.ListExecutionsPage(ctx, "", 1_000_000)
	if err != nil {
		return spi.Page{}, err
	}
	off := 0
	if cursor != "" {
		off, _ = strconv.Atoi(cursor)
	}
	ids := all.ExecutionIDs
	if off > len(ids) {
		off = len(ids)
	}
	end := min(off+limit, len(ids))
	p := spi.Page{ExecutionIDs: append([]string{}, ids[off:end]...)}
	if end < len(ids) {
		p.Next = strconv.Itoa(end)
	}
	return p, nil
}

// --- paging ignores limit.
type unboundedPage struct{ es }

func (s unboundedPage) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	if limit < 1 {
		return spi.Page{}, spi.Invalid("listExecutionsPage", "limit", "%d is below 1", limit)
	}
	p, err := s.es.ListExecutionsPage(ctx, cursor, 1_000_000)
	sort.Strings(p.ExecutionIDs)
	return p, err
}

// --- listExecutionsPage ordered by a collation (less) other than byte order, cursor compared the
// same way.
type listingCollated struct {
	es
	less func(a, b string) bool
}

func (s listingCollated) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	if limit < 1 {
		return s.es.ListExecutionsPage(ctx, cursor, limit)
	}
	ids, err := allExecutions(ctx, s.es)
	if err != nil {
		return spi.Page{}, err
	}
	sort.Slice(ids, func(i, j int) bool { return s.less(ids[i], ids[j]) })
	var out []string
	for _, x := range ids {
		if s.less(cursor, x) || cursor == "" {
			out = append(out, x)
		}
	}
	p := spi.Page{ExecutionIDs: out}
	if len(out) > limit {
		p.ExecutionIDs, p.Next = out[:limit], out[limit-1]
	}
	return p, nil
}

// --- listExecutionsPage lists every id ever written, deleted ones included.
type listsDeleted struct {
	es
	mu  *sync.Mutex
	all map[string]bool
}

func (s listsDeleted) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	err := s.es.Append(ctx, id, events, opts)
	if err == nil && len(events) > 0 {
		s.mu.Lock()
		s.all[id] = true
		s.mu.Unlock()
	}
	return err
}

func (s listsDeleted) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	if limit < 1 {
		return spi.Page{}, spi.Invalid("listExecutionsPage", "limit", "%d is below 1", limit)
	}
	s.mu.Lock()
	var ids []string
	for id := range s.all {
		if id > cursor {
			ids = append(ids, id)
		}
	}
	s.mu.Unlock()
	sort.Strings(ids)
	if len(ids) > limit {
		return spi.Page{ExecutionIDs: ids[:limit], Next: ids[limit-1]}, nil
	}
	return spi.Page{ExecutionIDs: ids}, nil
}
