package broken

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- the sealed flag, once saved, survives an unsealed save at the same sequence
// (… DO UPDATE SET sealed = snapshots.sealed OR excluded.sealed).
type sealedSticky struct {
	ss
	mu     *sync.Mutex
	sealed map[string]bool
}

func snapKey(id string, seq int64) string { return fmt.Sprintf("%s\x00%d", id, seq) }

func (s sealedSticky) Save(ctx context.Context, sn spi.Snapshot) error {
	k := snapKey(sn.ExecutionID, sn.Sequence)
	s.mu.Lock()
	if s.sealed[k] {
		sn.Sealed = true
	}
	if sn.Sealed {
		s.sealed[k] = true
	}
	s.mu.Unlock()
	return s.ss.Save(ctx, sn)
}

// --- a second save merges the new state's top-level keys into the old one
// (… DO UPDATE SET state = snapshots.state || excluded.state).
type stateMergedStore struct {
	ss
	mu    *sync.Mutex
	state map[string]map[string]json.RawMessage
}

func (s stateMergedStore) Save(ctx context.Context, sn spi.Snapshot) error {
	var next map[string]json.RawMessage
	if json.Unmarshal(sn.State, &next) == nil && next != nil {
		k := snapKey(sn.ExecutionID, sn.Sequence)
		s.mu.Lock()
		merged := map[string]json.RawMessage{}
		for key, v := range s.state[k] {
			merged[key] = v
		}
		for key, v := range next {
			merged[key] = v
		}
		s.state[k] = merged
		s.mu.Unlock()
		sn.State, _ = json.Marshal(merged)
	}
	return s.ss.Save(ctx, sn)
}

// --- a save at a taken sequence deletes the old snapshot, then inserts the new one, in two
// statements without a transaction.
type saveDeleteThenInsert struct{ watchedSS }

func (s saveDeleteThenInsert) Save(ctx context.Context, sn spi.Snapshot) error {
	seqs, err := s.ss.ListSequences(ctx, sn.ExecutionID)
	if err != nil {
		return err
	}
	for _, q := range seqs {
		if q == sn.Sequence {
			if _, err := s.ss.PruneSnapshots(ctx, sn.ExecutionID, spi.SeqRange{From: q, Through: q}); err != nil {
				return err
			}
			s.w.hold(ctx)
			break
		}
	}
	return s.ss.Save(ctx, sn)
}

// --- loadLatest reads a "latest" pointer that save moves up with check-then-act: the comparison
// and the write are two statements, so racing saves can leave a lower snapshot as latest.
type latestPointerRace struct {
	ss
	mu     *sync.Mutex
	latest map[string]spi.Snapshot
	pace   pace // how the window opens (see gap)
}

func (s latestPointerRace) Save(ctx context.Context, sn spi.Snapshot) error {
	if err := s.ss.Save(ctx, sn); err != nil {
		return err
	}
	s.mu.Lock()
	cur, ok := s.latest[sn.ExecutionID]
	s.mu.Unlock()
	if ok && cur.Sequence > sn.Sequence {
		return nil
	}
	gap(s.pace, func() { time.Sleep(midway) })
	s.mu.Lock()
	s.latest[sn.ExecutionID] = sn
	s.mu.Unlock()
	return nil
}

func (s latestPointerRace) LoadLatest(ctx context.Context, id string) (spi.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sn, ok := s.latest[id]; ok {
		return sn, nil
	}
	return spi.Snapshot{}, spi.ErrNotFound
}

// --- a save whose state "equals" the stored one (compared through float64) is skipped as
// unchanged, so a state differing only in a number a double cannot hold is lost.
type saveSkipsFloatEqual struct {
	ss
	mu   *sync.Mutex
	last map[string]json.RawMessage
}

func (s saveSkipsFloatEqual) Save(ctx context.Context, sn spi.Snapshot) error {
	k := snapKey(sn.ExecutionID, sn.Sequence)
	// the whole record is compared (a save that changes only the sealed flag is kept), so its
	// only defect is the float64 comparison of states
	rec := json.RawMessage(fmt.Sprintf(`{"sealed":%t,"state":%s}`, sn.Sealed, sn.State))
	s.mu.Lock()
	old, ok := s.last[k]
	s.last[k] = rec
	s.mu.Unlock()
	if ok && floatEqual(old, rec) {
		return nil
	}
	return s.ss.Save(ctx, sn)
}

// DeleteExecution forgets what was saved for id, so its only defect is the float64 comparison.
func (s saveSkipsFloatEqual) DeleteExecution(ctx context.Context, id string) error {
	s.mu.Lock()
	for k := range s.last {
		if strings.HasPrefix(k, id+"\x00") {
			delete(s.last, k)
		}
	}
	s.mu.Unlock()
	return s.ss.DeleteExecution(ctx, id)
}

// PruneSnapshots forgets what was saved at the pruned sequences.
func (s saveSkipsFloatEqual) PruneSnapshots(ctx context.Context, id string, r spi.SeqRange) ([]int64, error) {
	got, err := s.ss.PruneSnapshots(ctx, id, r)
	s.mu.Lock()
	for _, seq := range got {
		delete(s.last, snapKey(id, seq))
	}
	s.mu.Unlock()
	return got, err
}

// --- latest off by one: the second-highest snapshot once there are two.
type latestOffByOne struct {
	ss
	mu    *sync.Mutex
	saved map[string]map[int64]spi.Snapshot
}

func (s latestOffByOne) Save(ctx context.Context, sn spi.Snapshot) error {
	if err := s.ss.Save(ctx, sn); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.saved[sn.ExecutionID] == nil {
		s.saved[sn.ExecutionID] = map[int64]spi.Snapshot{}
	}
	s.saved[sn.ExecutionID][sn.Sequence] = sn
	return nil
}

func (s latestOffByOne) LoadLatest(ctx context.Context, id string) (spi.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var seqs []int64
	for q := range s.saved[id] {
		seqs = append(seqs, q)
	}
	if len(seqs) < 2 {
		return s.ss.LoadLatest(ctx, id)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	return s.saved[id][seqs[len(seqs)-2]], nil
}

func newLatestOffByOne() spi.SnapshotStore {
	return latestOffByOne{newSS(), &sync.Mutex{}, map[string]map[int64]spi.Snapshot{}}
}

// --- save keeps the first snapshot at a sequence.
type firstWriteWins struct{ ss }

func (s firstWriteWins) Save(ctx context.Context, sn spi.Snapshot) error {
	seqs, _ := s.ss.ListSequences(ctx, sn.ExecutionID)
	for _, q := range seqs {
		if q == sn.Sequence {
			return nil
		}
	}
	return s.ss.Save(ctx, sn)
}

// --- loadLatestSealed ignores the sealed flag.
type sealedIgnored struct{ ss }

func (s sealedIgnored) LoadLatestSealed(ctx context.Context, id string) (spi.Snapshot, error) {
	return s.ss.LoadLatest(ctx, id)
}

type watchedSS struct {
	ss
	w window
}

func newWatchedSS() watchedSS { return watchedSS{newSS(), newWindow()} }

func (s watchedSS) LoadLatest(ctx context.Context, id string) (out spi.Snapshot, err error) {
	s.w.read(func() { out, err = s.ss.LoadLatest(ctx, id) })
	return out, err
}
