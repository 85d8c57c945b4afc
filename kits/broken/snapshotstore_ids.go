package broken

import (
	"context"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- snapshots keyed by the lower-cased execution id.
type snapshotsFoldCase struct{ ss }

func (s snapshotsFoldCase) Save(ctx context.Context, sn spi.Snapshot) error {
	sn.ExecutionID = strings.ToLower(sn.ExecutionID)
	return s.ss.Save(ctx, sn)
}

func (s snapshotsFoldCase) LoadLatest(ctx context.Context, id string) (spi.Snapshot, error) {
	sn, err := s.ss.LoadLatest(ctx, strings.ToLower(id))
	if err == nil {
		sn.ExecutionID = id
	}
	return sn, err
}

// --- snapshots keyed snap/<id><sep><seq>: loadLatest scans the key prefix <id><sep>, so it also
// sees the snapshots of every id that extends it (after sep, when sep is not empty).
type prefixScanSnapshots struct {
	ss
	sep string
	mu  *sync.Mutex
	ids map[string]bool
}

func (s prefixScanSnapshots) Save(ctx context.Context, sn spi.Snapshot) error {
	s.mu.Lock()
	s.ids[sn.ExecutionID] = true
	s.mu.Unlock()
	return s.ss.Save(ctx, sn)
}

func (s prefixScanSnapshots) LoadLatest(ctx context.Context, id string) (spi.Snapshot, error) {
	s.mu.Lock()
	keys := sortedKeys(s.ids)
	s.mu.Unlock()
	best, found := spi.Snapshot{}, false
	for _, k := range keys {
		if k != id && !strings.HasPrefix(k, id+s.sep) {
			continue
		}
		if sn, err := s.ss.LoadLatest(ctx, k); err == nil && (!found || sn.Sequence > best.Sequence) {
			best, found = sn, true
		}
	}
	if !found {
		return best, spi.ErrNotFound
	}
	best.ExecutionID = id
	return best, nil
}

// --- deleteExecution deletes every execution's snapshots.
type deleteAllSnapshots struct {
	ss
	mu  *sync.Mutex
	ids map[string]bool
}

func (s deleteAllSnapshots) Save(ctx context.Context, sn spi.Snapshot) error {
	s.mu.Lock()
	s.ids[sn.ExecutionID] = true
	s.mu.Unlock()
	return s.ss.Save(ctx, sn)
}

func (s deleteAllSnapshots) DeleteExecution(ctx context.Context, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.ids {
		_ = s.ss.DeleteExecution(ctx, id)
	}
	return nil
}

// --- deleteExecution(x) matches x and every id that extends x after a dash (DELETE … WHERE id =
// $1 OR id LIKE $1 || '-%', a store keeping an execution's branches as <id>-<n>).
type deleteTakesDashed struct {
	ss
	mu  *sync.Mutex
	ids map[string]bool
}

func (s deleteTakesDashed) Save(ctx context.Context, sn spi.Snapshot) error {
	s.mu.Lock()
	s.ids[sn.ExecutionID] = true
	s.mu.Unlock()
	return s.ss.Save(ctx, sn)
}

func (s deleteTakesDashed) DeleteExecution(ctx context.Context, id string) error {
	s.mu.Lock()
	keys := sortedKeys(s.ids)
	s.mu.Unlock()
	for _, k := range keys {
		if strings.HasPrefix(k, id+"-") {
			if err := s.ss.DeleteExecution(ctx, k); err != nil {
				return err
			}
		}
	}
	return s.ss.DeleteExecution(ctx, id)
}
