package broken

import (
	"context"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

// midway is how long a broken store whose racing writers interleave waits between two of its
// steps: about one network round trip to a database on the same host, what two statements without
// a transaction cost. (A write that readers may see half-done holds its window instead.)
const midway = 100 * time.Microsecond

// --- deleteExecution matches ids case-insensitively (DELETE … WHERE id ILIKE $1).
type deleteFoldsCase struct{ es }

func (s deleteFoldsCase) DeleteExecution(ctx context.Context, id string) error {
	ids, err := allExecutions(ctx, s.es)
	if err != nil {
		return err
	}
	for _, x := range ids {
		if strings.EqualFold(x, id) {
			if err := s.es.DeleteExecution(ctx, x); err != nil {
				return err
			}
		}
	}
	return s.es.DeleteExecution(ctx, id)
}

func allExecutions(ctx context.Context, s es) ([]string, error) {
	var out []string
	cursor := ""
	for {
		p, err := s.ListExecutionsPage(ctx, cursor, 500)
		if err != nil {
			return nil, err
		}
		out = append(out, p.ExecutionIDs...)
		if p.Next == "" {
			return out, nil
		}
		cursor = p.Next
	}
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

// --- listExecutionsPage ordered by a collation (less) other than byte order, cursor compared the
// same way.
type listingCollated struct {
	es
	less func(a, b string) bool
}

func collate(a, b string) bool {
	la, lb := strings.ToLower(a), strings.ToLower(b)
	if la != lb {
		return la < lb
	}
	return a < b
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

// --- an append whose envelopes equal the stored ones is taken for an idempotent retry.
type appendResendNoop struct{ es }

func (s appendResendNoop) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	log, err := s.es.Read(ctx, id)
	if err == nil && len(events) > 0 && len(log) > 0 {
		head := log[len(log)-1].Sequence
		first := log[0].Sequence
		same := true
		for _, e := range events {
			if e.Sequence > head || e.Sequence < first || !spi.SameEnvelope(log[e.Sequence-first], e) {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	return s.es.Append(ctx, id, events, opts)
}

// --- a batch is written one envelope at a time, each validated as it is written.
type validatesLazily struct{ es }

func (s validatesLazily) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	for _, e := range events {
		if err := s.es.Append(ctx, id, []spi.Envelope{e}, opts); err != nil {
			return err
		}
	}
	return nil
}

// --- a batch is checked whole, then inserted one envelope per statement without a transaction.
type appendVisibleMidway struct {
	watchedES
	mu *sync.Mutex
}

func (s appendVisibleMidway) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := spi.ValidateBatch("append", id, events); err != nil || len(events) < 2 {
		if err != nil {
			return err
		}
		return s.es.Append(ctx, id, events, opts)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	log, err := s.es.Read(ctx, id)
	if err != nil {
		return err
	}
	if lastSeq(log)+1 != events[0].Sequence {
		return &spi.ConflictError{ExecutionID: id, Expected: events[0].Sequence, Actual: lastSeq(log) + 1}
	}
	for i, e := range events {
		if i > 0 {
			s.w.hold(ctx)
		}
		if err := s.es.Append(ctx, id, []spi.Envelope{e}, opts); err != nil {
			return err
		}
	}
	return nil
}

// --- deleteThrough deletes one sequence per statement, oldest first, without a transaction.
type deleteThroughVisibleMidway struct{ watchedES }

func (s deleteThroughVisibleMidway) DeleteThrough(ctx context.Context, id string, through int64) error {
	log, err := s.es.Read(ctx, id)
	if err != nil || len(log) == 0 || through < 0 {
		if err != nil {
			return err
		}
		return s.es.DeleteThrough(ctx, id, through)
	}
	for seq := log[0].Sequence; seq <= through && seq <= lastSeq(log); seq++ {
		if seq > log[0].Sequence {
			s.w.hold(ctx)
		}
		if err := s.es.DeleteThrough(ctx, id, seq); err != nil {
			return err
		}
	}
	return s.es.DeleteThrough(ctx, id, through)
}

// --- storeNow in microseconds.
type nowInMicros struct{ es }

func (s nowInMicros) StoreNow(ctx context.Context) (int64, error) { return time.Now().UnixMicro(), nil }

// --- reads are served by a replica that applies each append about a millisecond after it was
// acknowledged (asynchronous replication): a client may not read its own write.
type replicaLag struct {
	es
	replica es
	mu      *sync.Mutex
}

func newReplicaLag() replicaLag { return replicaLag{newES(), newES(), &sync.Mutex{}} }

func (s replicaLag) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := s.es.Append(ctx, id, events, opts); err != nil {
		return err
	}
	copied := append([]spi.Envelope(nil), events...)
	time.AfterFunc(time.Millisecond, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		_ = s.replica.Append(context.Background(), id, copied, spi.AppendOptions{})
	})
	return nil
}

func (s replicaLag) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	return s.replica.Read(ctx, id)
}

// --- reads answer from a cache while at least two appends are in flight (a read path that
// skips the primary only under contention), so staleness shows only under load.
type staleUnderContention struct {
	es
	inflight *atomic.Int64
	cache    *sync.Map
}

func (s staleUnderContention) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	time.Sleep(50 * time.Microsecond)
	return s.es.Append(ctx, id, events, opts)
}

func (s staleUnderContention) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	if s.inflight.Load() >= 2 {
		if v, ok := s.cache.Load(id); ok {
			return v.([]spi.Envelope), nil
		}
	}
	got, err := s.es.Read(ctx, id)
	if err == nil {
		s.cache.Store(id, got)
	}
	return got, err
}

// --- copyPrefix copies in chunks of ten envelopes, one statement each, without a transaction.
type copyPrefixVisibleMidway struct{ watchedES }

func (s copyPrefixVisibleMidway) CopyPrefix(ctx context.Context, source, target string, through int64) error {
	src, err := s.es.Read(ctx, source)
	if err != nil {
		return err
	}
	if through < 0 || through > lastSeq(src) {
		return s.es.CopyPrefix(ctx, source, target, through)
	}
	var out []spi.Envelope
	for _, e := range src {
		if e.Sequence <= through {
			e.ExecutionID = target
			out = append(out, e)
		}
	}
	for i := 0; i < len(out); i += 10 {
		if i > 0 {
			s.w.hold(ctx)
		}
		end := min(i+10, len(out))
		if err := s.es.Append(ctx, target, out[i:end], spi.AppendOptions{}); err != nil {
			return err
		}
	}
	return nil
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

// --- deleteExecution deletes the log in chunks of ten, oldest first, one statement each.
type deleteExecutionVisibleMidway struct{ watchedES }

func (s deleteExecutionVisibleMidway) DeleteExecution(ctx context.Context, id string) error {
	log, err := s.es.Read(ctx, id)
	if err != nil {
		return err
	}
	for i := 9; i < len(log)-1; i += 10 {
		if err := s.es.DeleteThrough(ctx, id, log[i].Sequence); err != nil {
			return err
		}
		s.w.hold(ctx)
	}
	return s.es.DeleteExecution(ctx, id)
}
