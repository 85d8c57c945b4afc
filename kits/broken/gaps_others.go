package broken

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

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

// archived returns what is archived of id by sequence.
func archived(ctx context.Context, s as, id string) (map[int64]spi.Envelope, error) {
	got, err := s.Read(ctx, id)
	if err != nil {
		return nil, err
	}
	m := map[int64]spi.Envelope{}
	for _, e := range got {
		m[e.Sequence] = e
	}
	return m, nil
}

// --- re-archived envelopes are compared byte for byte, so a respelled retry is a conflict.
type archiveBytesCompare struct{ as }

func (s archiveBytesCompare) Append(ctx context.Context, id string, events []spi.Envelope) error {
	m, err := archived(ctx, s.as, id)
	if err != nil {
		return err
	}
	for _, e := range events {
		if old, ok := m[e.Sequence]; ok && !sameBytes(old, e) {
			return &spi.ConflictError{ExecutionID: id, Expected: e.Sequence, Actual: -1, Reason: "bytes differ"}
		}
	}
	return s.as.Append(ctx, id, events)
}

func sameBytes(a, b spi.Envelope) bool {
	return bytes.Equal(a.Payload, b.Payload) && bytes.Equal(a.Metadata, b.Metadata) && a.ID == b.ID &&
		a.EventType == b.EventType && a.Timestamp == b.Timestamp && a.WorkflowID == b.WorkflowID
}

// --- re-archived envelopes are compared after decoding through float64: values a double cannot
// tell apart count as equal and the retry is taken as a no-op.
type archiveFloatCompare struct{ as }

func (s archiveFloatCompare) Append(ctx context.Context, id string, events []spi.Envelope) error {
	m, err := archived(ctx, s.as, id)
	if err != nil {
		return err
	}
	var fresh []spi.Envelope
	for _, e := range events {
		old, ok := m[e.Sequence]
		switch {
		case !ok:
			fresh = append(fresh, e)
		case !floatEqual(old.Payload, e.Payload) || !floatEqual(old.Metadata, e.Metadata) || old.ID != e.ID:
			return &spi.ConflictError{ExecutionID: id, Expected: e.Sequence, Actual: -1, Reason: "values differ"}
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	return s.as.Append(ctx, id, fresh)
}

func floatEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return true // "no metadata" matches anything: a nullable column compared with IS NOT DISTINCT only when set
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// --- an archive call is written one envelope at a time and stops at the first conflict.
type archivePartialBeforeConflict struct{ as }

func (s archivePartialBeforeConflict) Append(ctx context.Context, id string, events []spi.Envelope) error {
	for _, e := range events {
		if err := s.as.Append(ctx, id, []spi.Envelope{e}); err != nil {
			return err
		}
	}
	return nil
}

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

// --- replaceSegments keeps the old metadata when the new envelope has none
// (… SET metadata = COALESCE(excluded.metadata, archive.metadata)).
type replaceKeepsMetadata struct{ as }

func (s replaceKeepsMetadata) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	m, err := archived(ctx, s.as, id)
	if err != nil {
		return err
	}
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		if old, ok := m[e.Sequence]; ok && len(e.Metadata) == 0 {
			e.Metadata = old.Metadata
		}
		out[i] = e
	}
	return s.as.ReplaceSegments(ctx, id, r, out)
}

// --- branches keyed by the lower-cased id.
type branchesFoldCase struct{ br }

func (r branchesFoldCase) Register(ctx context.Context, b spi.Branch) error {
	b.ID = strings.ToLower(b.ID)
	return r.br.Register(ctx, b)
}

func (r branchesFoldCase) Get(ctx context.Context, id string) (spi.Branch, error) {
	b, err := r.br.Get(ctx, strings.ToLower(id))
	if err == nil {
		b.ID = id
	}
	return b, err
}

// --- listChildren ordered by a case-insensitive collation.
type childrenCollated struct {
	br
	less func(a, b string) bool
}

func (r childrenCollated) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	out, err := r.br.ListChildren(ctx, parent)
	sort.SliceStable(out, func(i, j int) bool { return r.less(out[i].ID, out[j].ID) })
	return out, err
}

// --- re-registration compares metadata bytes.
type branchBytesCompare struct{ br }

func (r branchBytesCompare) Register(ctx context.Context, b spi.Branch) error {
	if old, err := r.br.Get(ctx, b.ID); err == nil {
		if old.ParentID != b.ParentID || old.ForkSequence != b.ForkSequence || !bytes.Equal(old.Metadata, b.Metadata) {
			return spi.ErrAlreadyExists
		}
		return nil
	}
	return r.br.Register(ctx, b)
}

// --- re-registration compares metadata decoded through float64.
type branchFloatCompare struct{ br }

func (r branchFloatCompare) Register(ctx context.Context, b spi.Branch) error {
	if old, err := r.br.Get(ctx, b.ID); err == nil {
		if old.ParentID != b.ParentID || old.ForkSequence != b.ForkSequence || !floatEqual(old.Metadata, b.Metadata) {
			return spi.ErrAlreadyExists
		}
		return nil
	}
	return r.br.Register(ctx, b)
}

// --- loadLatest reads a "latest" pointer that save moves up with check-then-act: the comparison
// and the write are two statements, so racing saves can leave a lower snapshot as latest.
type latestPointerRace struct {
	ss
	mu     *sync.Mutex
	latest map[string]spi.Snapshot
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
	time.Sleep(midway)
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

// --- replaceSegments drops the range, then inserts the new envelopes one by one, checking each
// lies in the range only as it comes to it.
type replaceValidatesLazily struct{ as }

func (s replaceValidatesLazily) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	if r.From > r.Through {
		return spi.Invalid("replaceSegments", "range", "inverted")
	}
	if err := s.as.ReplaceSegments(ctx, id, r, nil); err != nil {
		return err
	}
	for _, e := range events {
		if !r.Contains(e.Sequence) {
			return spi.Invalid("replaceSegments", "events", "sequence %d outside [%d, %d]", e.Sequence, r.From, r.Through)
		}
		if err := s.as.Append(ctx, id, []spi.Envelope{e}); err != nil {
			return err
		}
	}
	return nil
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
	s.mu.Lock()
	old, ok := s.last[k]
	s.last[k] = sn.State
	s.mu.Unlock()
	if ok && floatEqual(old, sn.State) {
		return nil
	}
	return s.ss.Save(ctx, sn)
}
