package broken

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- stale reads under load: while an append is in flight, reads answer from a cache.
type staleUnderLoad struct {
	es
	inflight *atomic.Int64
	cache    *sync.Map
}

func (s staleUnderLoad) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	time.Sleep(200 * time.Microsecond)
	return s.es.Append(ctx, id, events, opts)
}

func (s staleUnderLoad) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	if s.inflight.Load() > 0 {
		if v, ok := s.cache.Load(id); ok {
			return v.([]spi.Envelope), nil
		}
		return []spi.Envelope{}, nil
	}
	got, err := s.es.Read(ctx, id)
	if err == nil {
		s.cache.Store(id, got)
	}
	return got, err
}

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
