package broken

import (
	"context"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- prune treats the range as half-open: through survives.
type pruneHalfOpen struct{ ss }

func (s pruneHalfOpen) PruneSnapshots(ctx context.Context, id string, r spi.SeqRange) ([]int64, error) {
	if r.From == r.Through {
		return []int64{}, nil
	}
	return s.ss.PruneSnapshots(ctx, id, spi.SeqRange{From: r.From, Through: r.Through - 1})
}

// --- every save of a sequence is its own row: listSequences lists the sequence once, prune
// deletes and reports it once per save, so the dry run it backs under-reports.
type pruneCountsSaves struct {
	ss
	mu    *sync.Mutex
	saves map[string]map[int64]int
}

func (s pruneCountsSaves) Save(ctx context.Context, sn spi.Snapshot) error {
	if err := s.ss.Save(ctx, sn); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.saves[sn.ExecutionID] == nil {
		s.saves[sn.ExecutionID] = map[int64]int{}
	}
	s.saves[sn.ExecutionID][sn.Sequence]++
	return nil
}

func (s pruneCountsSaves) PruneSnapshots(ctx context.Context, id string, r spi.SeqRange) ([]int64, error) {
	got, err := s.ss.PruneSnapshots(ctx, id, r)
	if err != nil {
		return got, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []int64{}
	for _, q := range got {
		for i := 0; i < max(1, s.saves[id][q]); i++ {
			out = append(out, q)
		}
		delete(s.saves[id], q)
	}
	return out, nil
}

// --- listSequences descending.
type sequencesDescending struct{ ss }

func (s sequencesDescending) ListSequences(ctx context.Context, id string) ([]int64, error) {
	out, err := s.ss.ListSequences(ctx, id)
	sort.Slice(out, func(i, j int) bool { return out[i] > out[j] })
	return out, err
}
