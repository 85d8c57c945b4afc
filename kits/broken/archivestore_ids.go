package broken

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- archive: deleteExecution matches ids case-insensitively.
type archiveDeleteFoldsCase struct {
	as
	mu  *sync.Mutex
	ids map[string]bool
}

func (s archiveDeleteFoldsCase) Append(ctx context.Context, id string, events []spi.Envelope) error {
	s.mu.Lock()
	s.ids[id] = true
	s.mu.Unlock()
	return s.as.Append(ctx, id, events)
}

func (s archiveDeleteFoldsCase) DeleteExecution(ctx context.Context, id string) error {
	s.mu.Lock()
	keys := sortedKeys(s.ids)
	s.mu.Unlock()
	for _, k := range keys {
		if strings.EqualFold(k, id) {
			if err := s.as.DeleteExecution(ctx, k); err != nil {
				return err
			}
		}
	}
	return s.as.DeleteExecution(ctx, id)
}

// --- archive keyed arch/<id><sep><seq>: read scans the key prefix <id><sep>.
type prefixScanArchive struct {
	as
	sep string
	mu  *sync.Mutex
	ids map[string]bool
}

func (s prefixScanArchive) Append(ctx context.Context, id string, events []spi.Envelope) error {
	s.mu.Lock()
	s.ids[id] = true
	s.mu.Unlock()
	return s.as.Append(ctx, id, events)
}

func (s prefixScanArchive) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	s.mu.Lock()
	keys := sortedKeys(s.ids)
	s.mu.Unlock()
	var out []spi.Envelope
	for _, k := range keys {
		if k == id || strings.HasPrefix(k, id+s.sep) {
			got, err := s.as.Read(ctx, k)
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Sequence < out[j].Sequence })
	return out, nil
}
