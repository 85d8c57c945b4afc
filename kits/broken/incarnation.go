package broken

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

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
