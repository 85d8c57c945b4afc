package broken

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

type ss struct{ *memory.SnapshotStore }

func newSS() ss { return ss{memory.NewSnapshotStore()} }

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

// --- state numbers pass through float64.
type lossyState struct{ ss }

func (s lossyState) Save(ctx context.Context, sn spi.Snapshot) error {
	var v any
	if json.Unmarshal(sn.State, &v) == nil {
		sn.State, _ = json.Marshal(v)
	}
	return s.ss.Save(ctx, sn)
}

// --- loadLatestSealed ignores the sealed flag.
type sealedIgnored struct{ ss }

func (s sealedIgnored) LoadLatestSealed(ctx context.Context, id string) (spi.Snapshot, error) {
	return s.ss.LoadLatest(ctx, id)
}

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

// SnapshotStores lists the broken SnapshotStores.
func SnapshotStores() []Store[spi.SnapshotStore] {
	return []Store[spi.SnapshotStore]{
		{"latest-off-by-one", "loadLatest answers the second-highest sequence", "snapshotstore/load-latest", newLatestOffByOne},
		{"latest-off-by-one-fold", "loadLatest answers the second-highest sequence (seen by the fold)", "snapshotstore/equivalence", newLatestOffByOne},
		{"first-write-wins", "a second save at a sequence is ignored", "snapshotstore/save-replaces", func() spi.SnapshotStore { return firstWriteWins{newSS()} }},
		{"lossy-state", "state numbers pass through float64", "snapshotstore/roundtrip-precision", func() spi.SnapshotStore { return lossyState{newSS()} }},
		{"sealed-ignored", "loadLatestSealed returns unsealed snapshots", "snapshotstore/load-latest-sealed", func() spi.SnapshotStore { return sealedIgnored{newSS()} }},
		{"prune-wrong-range", "pruneSnapshots keeps the snapshot at through", "snapshotstore/prune-range", func() spi.SnapshotStore { return pruneHalfOpen{newSS()} }},
		{"sequences-descending", "listSequences is descending", "snapshotstore/list-sequences", func() spi.SnapshotStore { return sequencesDescending{newSS()} }},
		{"prune-counts-saves", "pruneSnapshots reports a sequence once per save while listSequences lists it once, so its dry run under-reports", "snapshotstore/prune-dry-run", func() spi.SnapshotStore {
			return pruneCountsSaves{newSS(), &sync.Mutex{}, map[string]map[int64]int{}}
		}},
		{"delete-all-snapshots", "deleteExecution removes every execution's snapshots", "snapshotstore/delete-execution", func() spi.SnapshotStore {
			return deleteAllSnapshots{newSS(), &sync.Mutex{}, map[string]bool{}}
		}},
		{"prefix-scan-snapshots", "loadLatest scans the bare id as a key prefix, so ids extending it leak in", "snapshotstore/isolation", func() spi.SnapshotStore {
			return prefixScanSnapshots{newSS(), "", &sync.Mutex{}, map[string]bool{}}
		}},
	}
}

// KeyReorderingSnapshotStore is a CORRECT store that rewrites every saved state with object keys
// in reverse order, as a normalising store (PostgreSQL jsonb) may: the kit must pass it.
func KeyReorderingSnapshotStore() spi.SnapshotStore { return reorder{newSS()} }

// JsonbLikeSnapshotStore is a CORRECT store that behaves like a PostgreSQL jsonb column: it
// reorders keys and refuses U+0000 in strings. It must pass every MUST check (only the SHOULD
// snapshotstore/roundtrip-nul fails, I-STORE-25).
func JsonbLikeSnapshotStore() spi.SnapshotStore { return jsonbLike{reorder{newSS()}} }

type jsonbLike struct{ reorder }

func (s jsonbLike) Save(ctx context.Context, sn spi.Snapshot) error {
	if strings.Contains(string(sn.State), `\u0000`) {
		return errors.New(`ERROR: unsupported Unicode escape sequence (SQLSTATE 22P05)`)
	}
	return s.reorder.Save(ctx, sn)
}

type reorder struct{ ss }

func (s reorder) Save(ctx context.Context, sn spi.Snapshot) error {
	if b, err := reverseKeys(sn.State); err == nil {
		sn.State = b
	}
	return s.ss.Save(ctx, sn)
}

type as struct{ *memory.ArchiveStore }

func newAS() as { return as{memory.NewArchiveStore()} }

// --- archive drops metadata.
type archiveDropsMetadata struct{ as }

func (s archiveDropsMetadata) Append(ctx context.Context, id string, events []spi.Envelope) error {
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		e.Metadata = nil
		out[i] = e
	}
	return s.as.Append(ctx, id, out)
}

// --- archive keeps duplicates of a retried compaction.
type archiveDuplicates struct {
	as
	mu    *sync.Mutex
	extra map[string][]spi.Envelope
}

func (s archiveDuplicates) Append(ctx context.Context, id string, events []spi.Envelope) error {
	have, _ := s.as.Read(ctx, id)
	seen := map[int64]bool{}
	for _, e := range have {
		seen[e.Sequence] = true
	}
	s.mu.Lock()
	for _, e := range events {
		if seen[e.Sequence] {
			s.extra[id] = append(s.extra[id], e)
		}
	}
	s.mu.Unlock()
	return s.as.Append(ctx, id, events)
}

func (s archiveDuplicates) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	got, err := s.as.Read(ctx, id)
	s.mu.Lock()
	got = append(got, s.extra[id]...)
	s.mu.Unlock()
	sort.SliceStable(got, func(i, j int) bool { return got[i].Sequence < got[j].Sequence })
	return got, err
}

// --- archive silently keeps the first envelope when a different one arrives, and stores the rest.
type archiveSwallowsConflict struct{ as }

func (s archiveSwallowsConflict) Append(ctx context.Context, id string, events []spi.Envelope) error {
	for _, e := range events {
		_ = s.as.Append(ctx, id, []spi.Envelope{e})
	}
	return nil
}

// --- archive compares, then inserts, without holding anything in between.
type archiveRace struct {
	as
	mu   *sync.Mutex
	data map[string]map[int64]spi.Envelope
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
	time.Sleep(300 * time.Microsecond) // the window
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

// --- replaceSegments also removes the envelope after the range.
type replaceTooMuch struct{ as }

func (s replaceTooMuch) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	if err := spi.ValidateReplace(id, r, events); err != nil {
		return err
	}
	return s.as.ReplaceSegments(ctx, id, spi.SeqRange{From: r.From, Through: r.Through + 1}, events)
}

// ArchiveStores lists the broken ArchiveStores.
func ArchiveStores() []Store[spi.ArchiveStore] {
	return []Store[spi.ArchiveStore]{
		{"archive-drops-metadata", "archived envelopes lose their metadata", "archivestore/keeps-removed-exactly", func() spi.ArchiveStore { return archiveDropsMetadata{newAS()} }},
		{"archive-duplicates", "a retried compaction archives envelopes twice", "archivestore/reappend-idempotent", func() spi.ArchiveStore {
			return archiveDuplicates{newAS(), &sync.Mutex{}, map[string][]spi.Envelope{}}
		}},
		{"archive-swallows-conflict", "a different envelope at an archived sequence is ignored and the rest stored", "archivestore/reappend-different-conflict", func() spi.ArchiveStore { return archiveSwallowsConflict{newAS()} }},
		{"archive-race", "compare-then-insert without a lock: racing archivers both win", "archivestore/concurrent-archivers", func() spi.ArchiveStore {
			return archiveRace{newAS(), &sync.Mutex{}, map[string]map[int64]spi.Envelope{}}
		}},
		{"replace-too-much", "replaceSegments also drops the envelope after the range", "archivestore/replace-segments", func() spi.ArchiveStore { return replaceTooMuch{newAS()} }},
		{"empty-replace-noop", "replaceSegments with no envelopes changes nothing", "archivestore/replace-segments", func() spi.ArchiveStore { return emptyReplaceNoop{newAS()} }},
		{"prefix-scan-archive", "read scans the bare id as a key prefix, so ids extending it leak in", "archivestore/isolation", func() spi.ArchiveStore {
			return prefixScanArchive{newAS(), "", &sync.Mutex{}, map[string]bool{}}
		}},
		{"lossy-archive", "archived numbers pass through float64", "archivestore/roundtrip-precision", func() spi.ArchiveStore { return lossyArchive{newAS()} }},
	}
}

type br struct{ *memory.BranchRegistry }

func newBR() br { return br{memory.NewBranchRegistry()} }

// --- listChildren includes grandchildren.
type childrenAndGrandchildren struct{ br }

func (r childrenAndGrandchildren) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	out, err := r.br.ListChildren(ctx, parent)
	for _, c := range append([]spi.Branch{}, out...) {
		more, _ := r.br.ListChildren(ctx, c.ID)
		out = append(out, more...)
	}
	return out, err
}

// --- register overwrites a different branch.
type registerOverwrites struct {
	br
	mu   *sync.Mutex
	last map[string]spi.Branch
}

func (r registerOverwrites) Register(ctx context.Context, b spi.Branch) error {
	if err := r.br.Register(ctx, b); err != nil && err != spi.ErrAlreadyExists {
		return err
	}
	r.mu.Lock()
	r.last[b.ID] = b
	r.mu.Unlock()
	return nil
}

func (r registerOverwrites) Get(ctx context.Context, id string) (spi.Branch, error) {
	r.mu.Lock()
	b, ok := r.last[id]
	r.mu.Unlock()
	if ok {
		return b, nil
	}
	return r.br.Get(ctx, id)
}

// --- no cycle detection beyond a self-parent.
type cyclesAllowed struct {
	br
	mu    *sync.Mutex
	extra map[string]spi.Branch
}

func (r cyclesAllowed) Register(ctx context.Context, b spi.Branch) error {
	err := r.br.Register(ctx, b)
	if err != nil && b.ParentID != b.ID && b.ID != "" && b.ParentID != "" && b.ForkSequence >= 0 {
		if _, gerr := r.br.Get(ctx, b.ID); gerr == spi.ErrNotFound {
			r.mu.Lock()
			r.extra[b.ID] = b
			r.mu.Unlock()
			return nil
		}
	}
	return err
}

func (r cyclesAllowed) Get(ctx context.Context, id string) (spi.Branch, error) {
	r.mu.Lock()
	b, ok := r.extra[id]
	r.mu.Unlock()
	if ok {
		return b, nil
	}
	return r.br.Get(ctx, id)
}

// --- register checks, then writes, without holding anything in between.
type registerRace struct {
	br
	mu   *sync.Mutex
	data map[string]spi.Branch
}

func (r registerRace) Register(ctx context.Context, b spi.Branch) error {
	if err := spi.ValidateBranch(b); err != nil {
		return err
	}
	r.mu.Lock()
	old, ok := r.data[b.ID]
	r.mu.Unlock()
	if ok {
		if spi.SameBranch(old, b) {
			return nil
		}
		return spi.ErrAlreadyExists
	}
	time.Sleep(300 * time.Microsecond)
	r.mu.Lock()
	r.data[b.ID] = b
	r.mu.Unlock()
	return nil
}

func (r registerRace) Get(ctx context.Context, id string) (spi.Branch, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.data[id]
	if !ok {
		return spi.Branch{}, spi.ErrNotFound
	}
	return b, nil
}

// --- get of an unknown id returns a zero branch.
type zeroForUnknown struct{ br }

func (r zeroForUnknown) Get(ctx context.Context, id string) (spi.Branch, error) {
	b, err := r.br.Get(ctx, id)
	if err == spi.ErrNotFound {
		return spi.Branch{ID: id}, nil
	}
	return b, err
}

// BranchRegistries lists the broken BranchRegistries.
func BranchRegistries() []Store[spi.BranchRegistry] {
	return []Store[spi.BranchRegistry]{
		{"children-and-grandchildren", "listChildren includes grandchildren", "branchregistry/list-children", func() spi.BranchRegistry { return childrenAndGrandchildren{newBR()} }},
		{"register-overwrites", "a different branch under a registered id overwrites it", "branchregistry/register-idempotent", func() spi.BranchRegistry {
			return registerOverwrites{newBR(), &sync.Mutex{}, map[string]spi.Branch{}}
		}},
		{"cycles-allowed", "a branch closing a cycle is accepted", "branchregistry/no-cycles", func() spi.BranchRegistry {
			return cyclesAllowed{newBR(), &sync.Mutex{}, map[string]spi.Branch{}}
		}},
		{"register-race", "check-then-write registration: racing registrations both win", "branchregistry/concurrent-register", func() spi.BranchRegistry {
			return registerRace{newBR(), &sync.Mutex{}, map[string]spi.Branch{}}
		}},
		{"zero-for-unknown", "get of an unknown id returns an empty branch, not not-found", "branchregistry/register-get", func() spi.BranchRegistry { return zeroForUnknown{newBR()} }},
		{"children-like-prefix", "listChildren matches parent ids by prefix, so children of parents extending the id are listed", "branchregistry/list-children", func() spi.BranchRegistry {
			return childrenLikePrefix{newBR(), &sync.Mutex{}, map[string]bool{}}
		}},
		{"lossy-branch-metadata", "branch metadata numbers pass through float64", "branchregistry/roundtrip-precision", func() spi.BranchRegistry { return lossyBranch{newBR()} }},
	}
}
