package memory

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

type execution struct {
	events      []spi.Envelope // ascending, dense
	next        int64          // next free sequence
	incarnation int64          // bumped by DeleteExecution
	fence       int64          // last issued fence token
}

// EventStore is the in-memory EventStore.
type EventStore struct {
	mu    sync.Mutex
	execs map[string]*execution
	now   func() time.Time
}

// NewEventStore returns an empty store. It is a single-process store, so by default it does not
// offer storeNow (spec §7: callers fall back to their injected clock); NewEventStoreWithClock does.
func NewEventStore() *EventStore {
	return &EventStore{execs: map[string]*execution{}}
}

// NewEventStoreWithClock returns an empty store whose storeNow reads now.
func NewEventStoreWithClock(now func() time.Time) *EventStore {
	return &EventStore{execs: map[string]*execution{}, now: now}
}

// Implements implements spi.Capabilities: every optional method, storeNow only with a clock.
func (s *EventStore) Implements(method string) bool {
	return method != spi.MethodStoreNow || s.now != nil
}

// EventStoreSpiVersion claims the current EventStore SPI.
func (s *EventStore) EventStoreSpiVersion() string { return manifest.EventStoreSpiVersion }

func (s *EventStore) get(id string) *execution {
	x := s.execs[id]
	if x == nil {
		x = &execution{}
		s.execs[id] = x
	}
	return x
}

// Append implements spi.EventStore.
func (s *EventStore) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	return s.appendIf(ctx, "append", id, nil, events, opts)
}

func (s *EventStore) appendIf(ctx context.Context, op, id string, anchor *spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := spi.ValidateBatch(op, id, events); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.get(id)
	if opts.Fence != 0 && opts.Fence != x.fence {
		return &spi.FencedError{ExecutionID: id, Held: opts.Fence, Current: x.fence}
	}
	if anchor != nil && *anchor != anchorOf(x) {
		return &spi.ConflictError{ExecutionID: id, Expected: -1, Actual: x.next, Reason: "log changed since the observation anchor"}
	}
	if len(events) == 0 {
		return nil
	}
	if events[0].Sequence != x.next {
		return &spi.ConflictError{ExecutionID: id, Expected: events[0].Sequence, Actual: x.next}
	}
	for _, e := range events {
		x.events = append(x.events, clone(e))
	}
	x.next += int64(len(events))
	return nil
}

// Read implements spi.EventStore.
func (s *EventStore) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	return s.ReadRange(ctx, id, 0, -1)
}

// ReadRange implements spi.RangeReader.
func (s *EventStore) ReadRange(ctx context.Context, id string, from, to int64) ([]spi.Envelope, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if from < 0 {
		return nil, spi.Invalid("readRange", "from", "%d is negative", from)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []spi.Envelope{}
	if x := s.execs[id]; x != nil {
		for _, e := range x.events {
			if e.Sequence >= from && (to < 0 || e.Sequence < to) {
				out = append(out, clone(e))
			}
		}
	}
	return out, nil
}

// AcquireFence implements spi.Fencer.
func (s *EventStore) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	if err := ctx.Err(); err != nil {
		return spi.Fence{}, err
	}
	if id == "" {
		return spi.Fence{}, spi.Invalid("acquireFence", "executionId", "empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.get(id)
	x.fence++
	return spi.Fence{ExecutionID: id, Token: x.fence}, nil
}

// AcquireFenceIf implements spi.ConditionalFencer.
func (s *EventStore) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	if err := ctx.Err(); err != nil {
		return spi.Fence{}, err
	}
	if id == "" {
		return spi.Fence{}, spi.Invalid("acquireFenceIf", "executionId", "empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.get(id)
	if x.fence != expected {
		return spi.Fence{}, &spi.FencedError{ExecutionID: id, Held: expected, Current: x.fence}
	}
	x.fence++
	return spi.Fence{ExecutionID: id, Token: x.fence}, nil
}

func anchorOf(x *execution) spi.Anchor {
	return spi.Anchor(fmt.Sprintf("%d:%d", x.incarnation, x.next))
}

// Observe implements spi.ConditionalAppender.
func (s *EventStore) Observe(ctx context.Context, id string) (spi.Anchor, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return anchorOf(s.get(id)), nil
}

// AppendIfUnchanged implements spi.ConditionalAppender.
func (s *EventStore) AppendIfUnchanged(ctx context.Context, id string, anchor spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	return s.appendIf(ctx, "appendIfUnchanged", id, &anchor, events, opts)
}

// StoreNow implements spi.Clock with the configured clock (spi.ErrUnsupported without one).
func (s *EventStore) StoreNow(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if s.now == nil {
		return 0, fmt.Errorf("memory: storeNow: no clock configured: %w", spi.ErrUnsupported)
	}
	return s.now().UnixMilli(), nil
}

// DeleteThrough implements spi.ThroughDeleter.
func (s *EventStore) DeleteThrough(ctx context.Context, id string, through int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if through < 0 {
		return spi.Invalid("deleteThrough", "through", "%d is negative", through)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.execs[id]
	if x == nil {
		return nil
	}
	keep := x.events[:0:0]
	for _, e := range x.events {
		if e.Sequence > through {
			keep = append(keep, e)
		}
	}
	x.events = keep
	return nil
}

// SealingCapability implements spi.SealingReporter: the memory store seals nothing.
func (s *EventStore) SealingCapability(ctx context.Context) (*spi.Sealing, error) {
	return nil, ctx.Err()
}

// CopyPrefix implements spi.PrefixCopier.
func (s *EventStore) CopyPrefix(ctx context.Context, source, target string, through int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if source == "" || target == "" || source == target {
		return spi.Invalid("copyPrefix", "source/target", "must be two different non-empty ids")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	src := s.execs[source]
	if src == nil || through < 0 || through >= src.next {
		return spi.Invalid("copyPrefix", "through", "%d is outside the source log", through)
	}
	if len(src.events) == 0 || src.events[0].Sequence != 0 {
		return spi.Invalid("copyPrefix", "source", "the prefix of %q is no longer stored", source)
	}
	dst := s.get(target)
	if dst.next != 0 {
		return spi.ErrAlreadyExists
	}
	for _, e := range src.events {
		if e.Sequence > through {
			break
		}
		c := clone(e)
		c.ExecutionID = target
		dst.events = append(dst.events, c)
	}
	dst.next = through + 1
	return nil
}

// DeleteExecution implements spi.ExecutionDeleter.
func (s *EventStore) DeleteExecution(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.execs[id]
	if x == nil || len(x.events) == 0 && x.next == 0 && x.fence == 0 {
		// nothing was ever written or fenced (an id only read): deleting it changes nothing
		// (I-STORE-71), its anchor and tokens included
		return nil
	}
	x.events, x.next = nil, 0
	x.incarnation++
	x.fence++ // earlier tokens stay fenced
	return nil
}

// Forget deletes an execution and everything the store remembers of it, its fence history
// included (DeleteExecution keeps that, so a token issued before stays fenced): for a process that
// keeps this store for long and deletes executions that will never be driven again (serve-kernel's
// finished executions past its bound), so their memory goes with them.
func (s *EventStore) Forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.execs, id)
}

// ListExecutionsPage implements spi.ExecutionLister.
func (s *EventStore) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	if err := ctx.Err(); err != nil {
		return spi.Page{}, err
	}
	if limit < 1 {
		return spi.Page{}, spi.Invalid("listExecutionsPage", "limit", "%d is below 1", limit)
	}
	s.mu.Lock()
	ids := make([]string, 0, len(s.execs))
	for id, x := range s.execs {
		if id > cursor && len(x.events) > 0 {
			ids = append(ids, id)
		}
	}
	s.mu.Unlock()
	sort.Strings(ids)
	return PageOf(ids, limit), nil
}

// PageOf cuts a page of at most limit ids from ascending ids that all follow the cursor.
func PageOf(ids []string, limit int) spi.Page {
	if len(ids) > limit {
		return spi.Page{ExecutionIDs: ids[:limit:limit], Next: ids[limit-1]}
	}
	return spi.Page{ExecutionIDs: ids}
}

func clone(e spi.Envelope) spi.Envelope {
	e.Payload = append([]byte(nil), e.Payload...)
	if e.Metadata != nil {
		e.Metadata = append([]byte(nil), e.Metadata...)
	}
	return e
}
