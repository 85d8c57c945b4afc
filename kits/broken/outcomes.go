package broken

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- commits the append whatever the context says, then reports the cancellation.
type commitThenCancel struct{ es }

func (s commitThenCancel) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	err := s.es.Append(context.WithoutCancel(ctx), id, events, opts)
	if err == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
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

// --- payload and metadata live in VARCHAR(1024) columns.
type smallPayloads struct{ es }

func (s smallPayloads) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	for _, e := range events {
		if len(e.Payload) > 1024 || len(e.Metadata) > 1024 {
			return fmt.Errorf("backend: value too long for type character varying(1024)")
		}
	}
	return s.es.Append(ctx, id, events, opts)
}

// --- archived numbers pass through float64.
type lossyArchive struct{ as }

func (s lossyArchive) Append(ctx context.Context, id string, events []spi.Envelope) error {
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		e.Payload = viaFloat(e.Payload)
		e.Metadata = viaFloat(e.Metadata)
		out[i] = e
	}
	return s.as.Append(ctx, id, out)
}

// --- replaceSegments with no envelopes takes the "nothing to write" shortcut.
type emptyReplaceNoop struct{ as }

func (s emptyReplaceNoop) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	if len(events) == 0 {
		return nil
	}
	return s.as.ReplaceSegments(ctx, id, r, events)
}

// --- branch metadata numbers pass through float64.
type lossyBranch struct{ br }

func (r lossyBranch) Register(ctx context.Context, b spi.Branch) error {
	b.Metadata = viaFloat(b.Metadata)
	return r.br.Register(ctx, b)
}

func viaFloat(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}
