package memory

import (
	"context"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// ArchiveStore is the in-memory ArchiveStore.
type ArchiveStore struct {
	mu   sync.Mutex
	arch map[string]map[int64]spi.Envelope
}

// NewArchiveStore returns an empty store.
func NewArchiveStore() *ArchiveStore {
	return &ArchiveStore{arch: map[string]map[int64]spi.Envelope{}}
}

// ArchiveStoreSpiVersion claims the current ArchiveStore SPI.
func (s *ArchiveStore) ArchiveStoreSpiVersion() string { return manifest.ArchiveStoreSpiVersion }

// Append implements spi.ArchiveStore.
func (s *ArchiveStore) Append(ctx context.Context, id string, events []spi.Envelope) error {
	if err := spi.ValidateArchiveBatch("append", id, events); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.arch[id]
	for _, e := range events {
		if old, ok := m[e.Sequence]; ok && !spi.SameEnvelope(old, e) {
			return &spi.ConflictError{ExecutionID: id, Expected: e.Sequence, Actual: -1,
				Reason: "a different envelope is already archived at that sequence"}
		}
	}
	if m == nil {
		m = map[int64]spi.Envelope{}
		s.arch[id] = m
	}
	for _, e := range events {
		if _, ok := m[e.Sequence]; !ok {
			m[e.Sequence] = clone(e)
		}
	}
	return nil
}

// Read implements spi.ArchiveStore.
func (s *ArchiveStore) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []spi.Envelope{}
	for _, e := range s.arch[id] {
		out = append(out, clone(e))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Sequence < out[j].Sequence })
	return out, nil
}

// DeleteExecution implements spi.ArchiveDeleter.
func (s *ArchiveStore) DeleteExecution(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.arch, id)
	return nil
}

// ReplaceSegments implements spi.SegmentReplacer.
func (s *ArchiveStore) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	if err := spi.ValidateReplace(id, r, events); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.arch[id]
	if m == nil {
		m = map[int64]spi.Envelope{}
		s.arch[id] = m
	}
	for seq := range m {
		if r.Contains(seq) {
			delete(m, seq)
		}
	}
	for _, e := range events {
		m[e.Sequence] = clone(e)
	}
	return nil
}
