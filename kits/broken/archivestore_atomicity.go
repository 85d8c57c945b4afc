package broken

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- an archive call is checked whole, then inserted one envelope per statement.
type archiveAppendVisibleMidway struct {
	watchedAS
	mu *sync.Mutex
}

func (s archiveAppendVisibleMidway) Append(ctx context.Context, id string, events []spi.Envelope) error {
	if err := spi.ValidateArchiveBatch("append", id, events); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := archived(ctx, s.as, id)
	if err != nil {
		return err
	}
	for _, e := range events {
		if old, ok := m[e.Sequence]; ok && !spi.SameEnvelope(old, e) {
			return &spi.ConflictError{ExecutionID: id, Expected: e.Sequence, Actual: -1}
		}
	}
	for i, e := range events {
		if i > 0 {
			s.w.hold(ctx)
		}
		if err := s.as.Append(ctx, id, []spi.Envelope{e}); err != nil {
			return err
		}
	}
	return nil
}

// --- replaceSegments deletes the range, then inserts the new envelopes, without a transaction.
type replaceVisibleMidway struct{ watchedAS }

func (s replaceVisibleMidway) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	if err := spi.ValidateReplace(id, r, events); err != nil {
		return err
	}
	if err := s.as.ReplaceSegments(ctx, id, r, nil); err != nil {
		return err
	}
	s.w.hold(ctx)
	return s.as.Append(ctx, id, events)
}

// --- archive compares, then inserts, without holding anything in between.
type archiveRace struct {
	as
	mu   *sync.Mutex
	data map[string]map[int64]spi.Envelope
	pace pace // how the window opens (see gap)
}

func (s archiveRace) Append(ctx context.Context, id string, events []spi.Envelope) error {
	if err := spi.ValidateArchiveBatch("append", id, events); err != nil {
		return err
	}
	s.mu.Lock()
	have := s.data[id]
	for _, e := range events {
		if old, ok := have[e.Sequence]; ok && !spi.SameEnvelope(old, e) {
			s.mu.Unlock()
			return &spi.ConflictError{ExecutionID: id, Expected: e.Sequence, Actual: -1, Reason: "differs"}
		}
	}
	s.mu.Unlock()
	gap(s.pace, func() { time.Sleep(300 * time.Microsecond) }) // the window
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data[id] == nil {
		s.data[id] = map[int64]spi.Envelope{}
	}
	for _, e := range events {
		s.data[id][e.Sequence] = e // last writer wins, and batches interleave
	}
	return nil
}

func (s archiveRace) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []spi.Envelope{}
	for _, e := range s.data[id] {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Sequence < out[j].Sequence })
	return out, nil
}

type watchedAS struct {
	as
	w window
}

func newWatchedAS() watchedAS { return watchedAS{newAS(), newWindow()} }

func (s watchedAS) Read(ctx context.Context, id string) (out []spi.Envelope, err error) {
	s.w.read(func() { out, err = s.as.Read(ctx, id) })
	return out, err
}
