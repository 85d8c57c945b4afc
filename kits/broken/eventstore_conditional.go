package broken

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- appendIfUnchanged drops the fence: a zombie's late outcome with a stale token writes.
type anchorFenceIgnored struct{ es }

func (s anchorFenceIgnored) AppendIfUnchanged(ctx context.Context, id string, a spi.Anchor, events []spi.Envelope, _ spi.AppendOptions) error {
	return s.es.AppendIfUnchanged(ctx, id, a, events, spi.AppendOptions{})
}

// --- the anchor is a store-wide write counter, so a write to any execution makes it stale.
type globalAnchor struct {
	es
	mu *sync.Mutex
	n  *int64
}

func newGlobalAnchor() globalAnchor { return globalAnchor{newES(), &sync.Mutex{}, new(int64)} }

func (s globalAnchor) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.es.Append(ctx, id, events, opts)
	if err == nil {
		*s.n++
	}
	return err
}

func (s globalAnchor) DeleteExecution(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	*s.n++
	return s.es.DeleteExecution(ctx, id)
}

func (s globalAnchor) Observe(ctx context.Context, id string) (spi.Anchor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return spi.Anchor(fmt.Sprint(*s.n)), nil
}

func (s globalAnchor) AppendIfUnchanged(ctx context.Context, id string, a spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if string(a) != fmt.Sprint(*s.n) {
		return &spi.ConflictError{ExecutionID: id, Expected: -1, Actual: -1, Reason: "the store moved since the anchor"}
	}
	err := s.es.Append(ctx, id, events, opts)
	if err == nil {
		*s.n++
	}
	return err
}

// --- pre-2.3.0 anchor: the sequence-0 bytes and the length, so a recreated log reuses it.
type contentAnchor struct {
	es
	claim string
}

func (s contentAnchor) EventStoreSpiVersion() string { return s.claim }

func (s contentAnchor) Observe(ctx context.Context, id string) (spi.Anchor, error) {
	log, err := s.es.Read(ctx, id)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if len(log) > 0 {
		b, _ := json.Marshal(log[0])
		h.Write(b)
	}
	return spi.Anchor(fmt.Sprintf("%x:%d", h.Sum(nil)[:8], lastSeq(log)+1)), nil
}

func (s contentAnchor) AppendIfUnchanged(ctx context.Context, id string, a spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	now, err := s.Observe(ctx, id)
	if err != nil {
		return err
	}
	if now != a {
		return &spi.ConflictError{ExecutionID: id, Expected: -1, Actual: -1, Reason: "anchor moved"}
	}
	return s.es.Append(ctx, id, events, opts)
}

// --- appendIfUnchanged ignores its anchor.
type anchorIgnored struct{ es }

func (s anchorIgnored) AppendIfUnchanged(ctx context.Context, id string, a spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	log, _ := s.es.Read(ctx, id)
	if len(events) > 0 && events[0].Sequence != lastSeq(log)+1 {
		// Renumber onto the head: "unchanged" is never checked.
		out := make([]spi.Envelope, len(events))
		for i, e := range events {
			e.Sequence = lastSeq(log) + 1 + int64(i)
			out[i] = e
		}
		events = out
	}
	return s.es.Append(ctx, id, events, opts)
}

// --- the incarnation written into the events: a recreated execution's envelopes carry
// metadata.incarnation, so the log is no longer what the caller wrote (the incarnation belongs in
// store metadata only).
type incarnationInEvents struct {
	es
	mu  *sync.Mutex
	inc map[string]int
}

func newIncarnationInEvents() spi.EventStore {
	return incarnationInEvents{newES(), &sync.Mutex{}, map[string]int{}}
}

func (s incarnationInEvents) DeleteExecution(ctx context.Context, id string) error {
	s.mu.Lock()
	s.inc[id]++
	s.mu.Unlock()
	return s.es.DeleteExecution(ctx, id)
}

func (s incarnationInEvents) stamp(id string, events []spi.Envelope) []spi.Envelope {
	s.mu.Lock()
	n := s.inc[id]
	s.mu.Unlock()
	if n == 0 {
		return events
	}
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		md := map[string]any{}
		_ = json.Unmarshal(e.Metadata, &md)
		md["incarnation"] = n
		e.Metadata, _ = json.Marshal(md)
		out[i] = e
	}
	return out
}

func (s incarnationInEvents) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	return s.es.Append(ctx, id, s.stamp(id, events), opts)
}

func (s incarnationInEvents) AppendIfUnchanged(ctx context.Context, id string, a spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	return s.es.AppendIfUnchanged(ctx, id, a, s.stamp(id, events), opts)
}
