package broken

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

// fenceBook is fencing owned by a wrapper, with selectable defects.
type fenceBook struct {
	mu     sync.Mutex
	tokens map[string]int64
	racy   bool // acquire reads, waits, then writes: concurrent acquires share a token
	stale  bool // accepts any token not above the current one (a zombie writes)
	ignore bool // acquireFenceIf ignores its expectation
	down   bool // tokens are unique but each lower than the last one issued (a choice, I-STORE-100)
	low    int64
	pace   pace // how the window opens (see gap)
}

// fresh is the next token for id: the current one + 1, or with down the next of a book-wide
// descending count, never 0. The caller holds b.mu.
func (b *fenceBook) fresh(id string) int64 {
	if !b.down {
		return b.tokens[id] + 1
	}
	if b.low == 0 {
		b.low = 1 << 40
	}
	b.low--
	return b.low
}

func (b *fenceBook) acquire(id string, expected int64) (spi.Fence, error) {
	b.mu.Lock()
	cur := b.tokens[id]
	if expected >= 0 && !b.ignore && cur != expected {
		b.mu.Unlock()
		return spi.Fence{}, &spi.FencedError{ExecutionID: id, Held: expected, Current: cur}
	}
	next := b.fresh(id) // racy: read before the pause, so concurrent acquires share it
	if b.racy {
		b.mu.Unlock()
		gap(b.pace, func() { time.Sleep(300 * time.Microsecond) })
		b.mu.Lock()
	}
	b.tokens[id] = next
	b.mu.Unlock()
	return spi.Fence{ExecutionID: id, Token: next}, nil
}

func (b *fenceBook) check(id string, token int64) error {
	if token == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := b.tokens[id]
	if token == cur || (b.stale && token > 0 && token < cur) {
		return nil
	}
	return &spi.FencedError{ExecutionID: id, Held: token, Current: cur}
}

type fenced struct {
	es
	book *fenceBook
}

func newFenced(book *fenceBook) fenced {
	book.tokens = map[string]int64{}
	return fenced{es: newES(), book: book}
}

func (s fenced) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	return s.book.acquire(id, -1)
}

func (s fenced) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	return s.book.acquire(id, expected)
}

func (s fenced) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := s.book.check(id, opts.Fence); err != nil {
		return err
	}
	return s.es.Append(ctx, id, events, spi.AppendOptions{})
}

// AppendIfUnchanged is fence-checked against the book like Append (I-STORE-8).
func (s fenced) AppendIfUnchanged(ctx context.Context, id string, anchor spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := s.book.check(id, opts.Fence); err != nil {
		return err
	}
	return s.es.AppendIfUnchanged(ctx, id, anchor, events, spi.AppendOptions{})
}

func (s fenced) DeleteExecution(ctx context.Context, id string) error {
	s.book.mu.Lock()
	s.book.tokens[id] = s.book.fresh(id) // a token no one holds: every earlier one is stale
	s.book.mu.Unlock()
	return s.es.DeleteExecution(ctx, id)
}

// --- fence tokens live in a table keyed by the lower-cased id; the log itself keys by bytes.
type fenceFoldsCase struct{ fenced }

func newFenceFoldsCase() fenceFoldsCase { return fenceFoldsCase{newFenced(&fenceBook{})} }

func (s fenceFoldsCase) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	f, err := s.fenced.AcquireFence(ctx, strings.ToLower(id))
	f.ExecutionID = id
	return f, err
}

func (s fenceFoldsCase) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	f, err := s.fenced.AcquireFenceIf(ctx, strings.ToLower(id), expected)
	f.ExecutionID = id
	return f, err
}

func (s fenceFoldsCase) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := s.book.check(strings.ToLower(id), opts.Fence); err != nil {
		return err
	}
	return s.es.Append(ctx, id, events, spi.AppendOptions{})
}

func (s fenceFoldsCase) DeleteExecution(ctx context.Context, id string) error {
	s.book.mu.Lock()
	s.book.tokens[strings.ToLower(id)]++
	s.book.mu.Unlock()
	return s.es.DeleteExecution(ctx, id)
}

// --- acquireFenceIf reads the current token with a case-insensitive match (the highest token of
// every id equal under case folding), so another id's fence makes the expectation fail.
type fenceIfFoldsCase struct{ fenced }

func newFenceIfFoldsCase() fenceIfFoldsCase { return fenceIfFoldsCase{newFenced(&fenceBook{})} }

func (s fenceIfFoldsCase) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	s.book.mu.Lock()
	cur := int64(0)
	for k, t := range s.book.tokens {
		if strings.EqualFold(k, id) && t > cur {
			cur = t
		}
	}
	s.book.mu.Unlock()
	if cur != expected {
		return spi.Fence{}, &spi.FencedError{ExecutionID: id, Held: expected, Current: cur}
	}
	return s.fenced.AcquireFence(ctx, id)
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

// --- an append without a token is refused as fenced while a fence is held, until
// deleteExecution; a choice the spec leaves open (I-STORE-67).
type unfencedRefused struct {
	es
	mu   *sync.Mutex
	held map[string]int64 // the current token of each fenced execution
}

func newUnfencedRefused() unfencedRefused {
	return unfencedRefused{newES(), &sync.Mutex{}, map[string]int64{}}
}

func (s unfencedRefused) hold(f spi.Fence, err error) (spi.Fence, error) {
	if err == nil {
		s.mu.Lock()
		s.held[f.ExecutionID] = f.Token
		s.mu.Unlock()
	}
	return f, err
}

func (s unfencedRefused) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	return s.hold(s.es.AcquireFence(ctx, id))
}

func (s unfencedRefused) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	return s.hold(s.es.AcquireFenceIf(ctx, id, expected))
}

// refuse answers fenced for an unfenced write to an execution whose fence is held.
func (s unfencedRefused) refuse(id string, opts spi.AppendOptions) error {
	if opts.Fence != 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.held[id]; ok {
		return &spi.FencedError{ExecutionID: id, Held: 0, Current: cur}
	}
	return nil
}

func (s unfencedRefused) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := s.refuse(id, opts); err != nil {
		return err
	}
	return s.es.Append(ctx, id, events, opts)
}

func (s unfencedRefused) AppendIfUnchanged(ctx context.Context, id string, anchor spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := s.refuse(id, opts); err != nil {
		return err
	}
	return s.es.AppendIfUnchanged(ctx, id, anchor, events, opts)
}

func (s unfencedRefused) DeleteExecution(ctx context.Context, id string) error {
	err := s.es.DeleteExecution(ctx, id)
	if err == nil {
		s.mu.Lock()
		delete(s.held, id)
		s.mu.Unlock()
	}
	return err
}
