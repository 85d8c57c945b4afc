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

// indexedSS is the memory SnapshotStore that remembers every id saved, for the broken stores that
// scan or delete by a pattern over ids.
type indexedSS struct {
	ss
	mu  *sync.Mutex
	ids map[string]bool
}

func newIndexedSS() indexedSS { return indexedSS{newSS(), &sync.Mutex{}, map[string]bool{}} }

func (s indexedSS) Save(ctx context.Context, sn spi.Snapshot) error {
	s.mu.Lock()
	s.ids[sn.ExecutionID] = true
	s.mu.Unlock()
	return s.ss.Save(ctx, sn)
}

// saved lists the ids ever saved, in byte order.
func (s indexedSS) saved() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedKeys(s.ids)
}

// --- snapshots keyed snap/<id><sep><seq>: loadLatest scans the key prefix <id><sep>, so it also
// sees the snapshots of every id that extends it (after sep, when sep is not empty).
type prefixScanSnapshots struct {
	indexedSS
	sep string
}

func (s prefixScanSnapshots) LoadLatest(ctx context.Context, id string) (spi.Snapshot, error) {
	best, found := spi.Snapshot{}, false
	for _, k := range s.saved() {
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
type deleteAllSnapshots struct{ indexedSS }

func (s deleteAllSnapshots) DeleteExecution(ctx context.Context, _ string) error {
	for _, id := range s.saved() {
		_ = s.ss.DeleteExecution(ctx, id)
	}
	return nil
}

// --- deleteExecution(x) matches x and every id that extends x after a dash (DELETE … WHERE id =
// $1 OR id LIKE $1 || '-%', a store keeping an execution's branches as <id>-<n>).
type deleteTakesDashed struct{ indexedSS }

func (s deleteTakesDashed) DeleteExecution(ctx context.Context, id string) error {
	for _, k := range s.saved() {
		if strings.HasPrefix(k, id+"-") {
			if err := s.ss.DeleteExecution(ctx, k); err != nil {
				return err
			}
		}
	}
	return s.ss.DeleteExecution(ctx, id)
}
