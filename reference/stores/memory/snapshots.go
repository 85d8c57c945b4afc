package memory

import (
	"context"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// SnapshotStore is the in-memory SnapshotStore.
type SnapshotStore struct {
	mu    sync.Mutex
	snaps map[string]map[int64]spi.Snapshot
}

// NewSnapshotStore returns an empty store.
func NewSnapshotStore() *SnapshotStore {
	return &SnapshotStore{snaps: map[string]map[int64]spi.Snapshot{}}
}

// SnapshotStoreSpiVersion claims the current SnapshotStore SPI.
func (s *SnapshotStore) SnapshotStoreSpiVersion() string { return manifest.SnapshotStoreSpiVersion }

// Save implements spi.SnapshotStore.
func (s *SnapshotStore) Save(ctx context.Context, snap spi.Snapshot) error {
	if err := spi.ValidateSnapshot(snap); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.snaps[snap.ExecutionID]
	if m == nil {
		m = map[int64]spi.Snapshot{}
		s.snaps[snap.ExecutionID] = m
	}
	snap.State = append([]byte(nil), snap.State...)
	m[snap.Sequence] = snap
	return nil
}

func (s *SnapshotStore) latest(ctx context.Context, id string, sealedOnly bool) (spi.Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return spi.Snapshot{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	best, found := spi.Snapshot{}, false
	for seq, sn := range s.snaps[id] {
		if sealedOnly && !sn.Sealed {
			continue
		}
		if !found || seq > best.Sequence {
			best, found = sn, true
		}
	}
	if !found {
		return spi.Snapshot{}, spi.ErrNotFound
	}
	best.State = append([]byte(nil), best.State...)
	return best, nil
}

// LoadLatest implements spi.SnapshotStore.
func (s *SnapshotStore) LoadLatest(ctx context.Context, id string) (spi.Snapshot, error) {
	return s.latest(ctx, id, false)
}

// LoadLatestSealed implements spi.SealedLoader.
func (s *SnapshotStore) LoadLatestSealed(ctx context.Context, id string) (spi.Snapshot, error) {
	return s.latest(ctx, id, true)
}

// DeleteExecution implements spi.SnapshotDeleter.
func (s *SnapshotStore) DeleteExecution(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.snaps, id)
	return nil
}

// PruneSnapshots implements spi.SnapshotPruner.
func (s *SnapshotStore) PruneSnapshots(ctx context.Context, id string, r spi.SeqRange) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.From > r.Through {
		return nil, spi.Invalid("pruneSnapshots", "range", "from %d is after through %d", r.From, r.Through)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []int64{}
	for seq := range s.snaps[id] {
		if r.Contains(seq) {
			out = append(out, seq)
			delete(s.snaps[id], seq)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// ListSequences implements spi.SequenceLister.
func (s *SnapshotStore) ListSequences(ctx context.Context, id string) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []int64{}
	for seq := range s.snaps[id] {
		out = append(out, seq)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}
