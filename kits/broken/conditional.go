package broken

import (
	"context"
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
