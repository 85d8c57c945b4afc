package broken

import (
	"context"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/loom-kernel/loom-conform/spi"
)

// utf16Less orders strings by UTF-16 code units, as Java, JavaScript and .NET compare strings:
// the same as byte order except that characters beyond U+FFFF (surrogate pairs, D800–DFFF) sort
// before U+E000–U+FFFF.
func utf16Less(a, b string) bool {
	x, y := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return len(x) < len(y)
}

// --- rows keyed <id><sep><sequence>: read scans the key prefix <id><sep>, so it also returns the
// log of every id that extends the id after sep.
type delimitedScanES struct {
	es
	sep string
}

func (s delimitedScanES) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	out, err := s.es.Read(ctx, id)
	if err != nil {
		return nil, err
	}
	keys, err := allExecutions(ctx, s.es)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if strings.HasPrefix(k, id+s.sep) {
			got, err := s.es.Read(ctx, k)
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Sequence < out[j].Sequence })
	return out, nil
}

// --- branches kept as paths: listChildren(p) lists the children of p and of every parent whose id
// extends p after sep.
type childrenByPath struct {
	br
	sep     string
	mu      *sync.Mutex
	parents map[string]bool
}

func newChildrenByPath(sep string) childrenByPath {
	return childrenByPath{newBR(), sep, &sync.Mutex{}, map[string]bool{}}
}

func (r childrenByPath) Register(ctx context.Context, b spi.Branch) error {
	err := r.br.Register(ctx, b)
	if err == nil {
		r.mu.Lock()
		r.parents[b.ParentID] = true
		r.mu.Unlock()
	}
	return err
}

func (r childrenByPath) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	r.mu.Lock()
	keys := sortedKeys(r.parents)
	r.mu.Unlock()
	out := []spi.Branch{}
	for _, k := range keys {
		if k == parent || strings.HasPrefix(k, parent+r.sep) {
			got, err := r.br.ListChildren(ctx, k)
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
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

// --- putStreamFor keys its owner lower-cased; putFor and getFor do not.
type streamOwnerFolded struct{ cs }

func (s streamOwnerFolded) PutStreamFor(ctx context.Context, a spi.ContentAccess, r io.Reader) (spi.ContentRef, error) {
	return s.cs.PutStreamFor(ctx, spi.ContentAccess{Owner: strings.ToLower(a.Owner)}, r)
}

// --- a thin adapter over an event-sourcing library: a fenced append checks the token, then writes,
// in two steps (the window between them held open until a reader has looked), so an append whose
// token a newer acquireFence made stale lands after that acquire returned and a read saw nothing.
type fenceCheckThenWrite struct {
	fenced
	w window
}

func newFenceCheckThenWrite() fenceCheckThenWrite {
	return fenceCheckThenWrite{newFenced(&fenceBook{}), newWindow()}
}

func (s fenceCheckThenWrite) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := s.book.check(id, opts.Fence); err != nil {
		return err
	}
	if opts.Fence != 0 {
		s.w.hold(ctx)
	}
	return s.es.Append(ctx, id, events, spi.AppendOptions{})
}

func (s fenceCheckThenWrite) Read(ctx context.Context, id string) (out []spi.Envelope, err error) {
	s.w.read(func() { out, err = s.es.Read(ctx, id) })
	return out, err
}

// --- putStreamFor, unlike putStream, commits what it read before its source failed (the owner's
// method has its own, older stream code).
type ownerStreamKeepsPartial struct{ cs }

func (s ownerStreamKeepsPartial) PutStreamFor(ctx context.Context, a spi.ContentAccess, r io.Reader) (spi.ContentRef, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		_, _ = s.cs.PutFor(ctx, a, data)
		return spi.ContentRef{}, err
	}
	return s.cs.PutFor(ctx, a, data)
}
