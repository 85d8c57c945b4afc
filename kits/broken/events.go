package broken

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// es is the memory EventStore with every method overridable by embedding.
type es struct{ *memory.EventStore }

func newES() es { return es{memory.NewEventStoreWithClock(time.Now)} }

func lastSeq(envs []spi.Envelope) int64 {
	if len(envs) == 0 {
		return -1
	}
	return envs[len(envs)-1].Sequence
}

// --- read range: inclusive upper bound.
type offByOneRange struct{ es }

func (s offByOneRange) ReadRange(ctx context.Context, id string, from, to int64) ([]spi.Envelope, error) {
	if to >= 0 {
		to++
	}
	return s.es.ReadRange(ctx, id, from, to)
}

// --- non-atomic batch: envelope by envelope, taken sequences skipped.
type nonAtomicBatch struct{ es }

func (s nonAtomicBatch) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := spi.ValidateBatch("append", id, events); err != nil {
		return err
	}
	for _, e := range events {
		_ = s.es.Append(ctx, id, []spi.Envelope{e}, opts)
	}
	return nil
}

// --- stale append overwrites: an append at a taken sequence truncates and rewrites.
type overwriteStale struct{ es }

func (s overwriteStale) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	err := s.es.Append(ctx, id, events, opts)
	if err == nil || len(events) == 0 {
		return err
	}
	log, _ := s.es.Read(ctx, id)
	if events[0].Sequence > lastSeq(log) {
		return err
	}
	keep := append([]spi.Envelope{}, log[:events[0].Sequence]...)
	_ = s.es.DeleteExecution(ctx, id)
	return s.es.Append(ctx, id, append(keep, events...), spi.AppendOptions{})
}

// --- lost concurrent append: check, then act; the later writer rewrites the whole log.
type checkThenAct struct {
	es
	mu *sync.Mutex
}

func (s checkThenAct) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := spi.ValidateBatch("append", id, events); err != nil || len(events) == 0 {
		return err
	}
	log, _ := s.es.Read(ctx, id)
	if events[0].Sequence != lastSeq(log)+1 {
		return &spi.ConflictError{ExecutionID: id, Expected: events[0].Sequence, Actual: lastSeq(log) + 1}
	}
	time.Sleep(300 * time.Microsecond) // the window
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.es.DeleteExecution(ctx, id)
	return s.es.Append(ctx, id, append(append([]spi.Envelope{}, log...), events...), spi.AppendOptions{})
}

// --- cancellation tears a batch: written in chunks, stopping when the context ends.
type tornOnCancel struct{ es }

func (s tornOnCancel) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := spi.ValidateBatch("append", id, events); err != nil {
		return err
	}
	for start := 0; start < len(events); start += 10 {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+10, len(events))
		if err := s.es.Append(context.Background(), id, events[start:end], opts); err != nil {
			return err
		}
		time.Sleep(100 * time.Microsecond)
	}
	return nil
}

// --- a cancelled append still lands, after the call returned.
type landsAfterCancel struct{ es }

func (s landsAfterCancel) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := spi.ValidateBatch("append", id, events); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		time.Sleep(400 * time.Microsecond)
		done <- s.es.Append(context.Background(), id, events, opts)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// --- ids are truncated to 255 bytes, so long ids that share a prefix share a log.
type truncatedIDs struct{ es }

func trunc(id string) string {
	if len(id) > 255 {
		return id[:255]
	}
	return id
}

func (s truncatedIDs) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := spi.ValidateBatch("append", id, events); err != nil {
		return err
	}
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		e.ExecutionID = trunc(id)
		out[i] = e
	}
	return s.es.Append(ctx, trunc(id), out, opts)
}

func (s truncatedIDs) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	got, err := s.es.Read(ctx, trunc(id))
	for i := range got {
		got[i].ExecutionID = id
	}
	return got, err
}

// --- lost number precision: payloads pass through float64.
type lossyNumbers struct{ es }

func (s lossyNumbers) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		var v any
		if json.Unmarshal(e.Payload, &v) == nil {
			e.Payload, _ = json.Marshal(v)
		}
		out[i] = e
	}
	return s.es.Append(ctx, id, out, opts)
}

// --- dropped metadata.
type dropMetadata struct{ es }

func (s dropMetadata) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		e.Metadata = nil
		out[i] = e
	}
	return s.es.Append(ctx, id, out, opts)
}

// --- reads leak across executions: an empty id answers with any execution it prefixes.
type prefixLeak struct{ es }

func (s prefixLeak) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	got, err := s.es.Read(ctx, id)
	if err != nil || len(got) > 0 {
		return got, err
	}
	page, _ := s.es.ListExecutionsPage(ctx, "", 1_000_000)
	for _, other := range page.ExecutionIDs {
		if strings.HasPrefix(other, id) {
			return s.es.Read(ctx, other)
		}
	}
	return got, nil
}

// --- stale reads under load: while an append is in flight, reads answer from a cache.
type staleUnderLoad struct {
	es
	inflight *atomic.Int64
	cache    *sync.Map
}

func (s staleUnderLoad) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	time.Sleep(200 * time.Microsecond)
	return s.es.Append(ctx, id, events, opts)
}

func (s staleUnderLoad) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	if s.inflight.Load() > 0 {
		if v, ok := s.cache.Load(id); ok {
			return v.([]spi.Envelope), nil
		}
		return []spi.Envelope{}, nil
	}
	got, err := s.es.Read(ctx, id)
	if err == nil {
		s.cache.Store(id, got)
	}
	return got, err
}

// fenceBook is fencing owned by a wrapper, with selectable defects.
type fenceBook struct {
	mu     sync.Mutex
	tokens map[string]int64
	racy   bool // acquire reads, waits, then writes: concurrent acquires share a token
	stale  bool // accepts any token not above the current one (a zombie writes)
	ignore bool // acquireFenceIf ignores its expectation
}

func (b *fenceBook) acquire(id string, expected int64) (spi.Fence, error) {
	b.mu.Lock()
	cur := b.tokens[id]
	if expected >= 0 && !b.ignore && cur != expected {
		b.mu.Unlock()
		return spi.Fence{}, &spi.FencedError{ExecutionID: id, Held: expected, Current: cur}
	}
	if b.racy {
		b.mu.Unlock()
		time.Sleep(300 * time.Microsecond)
		b.mu.Lock()
	}
	b.tokens[id] = cur + 1
	b.mu.Unlock()
	return spi.Fence{ExecutionID: id, Token: cur + 1}, nil
}

func (b *fenceBook) check(id string, token int64) error {
	if token == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := b.tokens[id]
	if token == cur || (b.stale && token > 0 && token < cur) {
		return nil
	}
	return &spi.FencedError{ExecutionID: id, Held: token, Current: cur}
}

type fenced struct {
	es
	book *fenceBook
}

func newFenced(book *fenceBook) fenced {
	book.tokens = map[string]int64{}
	return fenced{es: newES(), book: book}
}

func (s fenced) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	return s.book.acquire(id, -1)
}

func (s fenced) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	return s.book.acquire(id, expected)
}

func (s fenced) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := s.book.check(id, opts.Fence); err != nil {
		return err
	}
	return s.es.Append(ctx, id, events, spi.AppendOptions{})
}

func (s fenced) DeleteExecution(ctx context.Context, id string) error {
	s.book.mu.Lock()
	s.book.tokens[id]++
	s.book.mu.Unlock()
	return s.es.DeleteExecution(ctx, id)
}

// --- pre-2.3.0 anchor: the sequence-0 bytes and the length, so a recreated log reuses it.
type contentAnchor struct {
	es
	claim string
}

func (s contentAnchor) EventStoreSpiVersion() string { return s.claim }

func (s contentAnchor) Observe(ctx context.Context, id string) (spi.Anchor, error) {
	log, err := s.es.Read(ctx, id)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if len(log) > 0 {
		b, _ := json.Marshal(log[0])
		h.Write(b)
	}
	return spi.Anchor(fmt.Sprintf("%x:%d", h.Sum(nil)[:8], lastSeq(log)+1)), nil
}

func (s contentAnchor) AppendIfUnchanged(ctx context.Context, id string, a spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	now, err := s.Observe(ctx, id)
	if err != nil {
		return err
	}
	if now != a {
		return &spi.ConflictError{ExecutionID: id, Expected: -1, Actual: -1, Reason: "anchor moved"}
	}
	return s.es.Append(ctx, id, events, opts)
}

// --- appendIfUnchanged ignores its anchor.
type anchorIgnored struct{ es }

func (s anchorIgnored) AppendIfUnchanged(ctx context.Context, id string, a spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	log, _ := s.es.Read(ctx, id)
	if len(events) > 0 && events[0].Sequence != lastSeq(log)+1 {
		// Renumber onto the head: "unchanged" is never checked.
		out := make([]spi.Envelope, len(events))
		for i, e := range events {
			e.Sequence = lastSeq(log) + 1 + int64(i)
			out[i] = e
		}
		events = out
	}
	return s.es.Append(ctx, id, events, opts)
}

// --- storeNow in seconds.
type nowInSeconds struct{ es }

func (s nowInSeconds) StoreNow(ctx context.Context) (int64, error) { return time.Now().Unix(), nil }

// --- deleteThrough keeps sequence 0.
type keepsSeqZero struct {
	es
	kept *sync.Map
}

func (s keepsSeqZero) DeleteThrough(ctx context.Context, id string, through int64) error {
	log, _ := s.es.Read(ctx, id)
	if len(log) > 0 && log[0].Sequence == 0 {
		if _, ok := s.kept.Load(id); !ok {
			s.kept.Store(id, log[0])
		}
	}
	return s.es.DeleteThrough(ctx, id, through)
}

func (s keepsSeqZero) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	got, err := s.es.Read(ctx, id)
	if v, ok := s.kept.Load(id); ok && err == nil {
		got = append([]spi.Envelope{v.(spi.Envelope)}, got...)
	}
	return got, err
}

// --- deleteThrough deletes one past through.
type deletesPastThrough struct{ es }

func (s deletesPastThrough) DeleteThrough(ctx context.Context, id string, through int64) error {
	return s.es.DeleteThrough(ctx, id, through+1)
}

// --- deleteThrough counts in appends that land while it runs (a concurrent append is lost).
type throughRace struct{ es }

func (s throughRace) DeleteThrough(ctx context.Context, id string, through int64) error {
	before, _ := s.es.Read(ctx, id)
	time.Sleep(2 * time.Millisecond)
	after, _ := s.es.Read(ctx, id)
	return s.es.DeleteThrough(ctx, id, through+lastSeq(after)-lastSeq(before))
}

// --- copyPrefix copies one envelope too many.
type copyOneMore struct{ es }

func (s copyOneMore) CopyPrefix(ctx context.Context, src, dst string, through int64) error {
	if err := s.es.CopyPrefix(ctx, src, dst, through+1); err == nil {
		return nil
	}
	return s.es.CopyPrefix(ctx, src, dst, through)
}

// --- deleteExecution keeps the head: the id cannot restart at 0.
type deleteKeepsHead struct{ es }

func (s deleteKeepsHead) DeleteExecution(ctx context.Context, id string) error {
	return s.es.DeleteThrough(ctx, id, 1<<62)
}

// --- paging by offset: concurrent inserts shift the window, so ids repeat or are skipped.
type offsetCursor struct{ es }

func (s offsetCursor) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	if limit < 1 {
		return spi.Page{}, spi.Invalid("listExecutionsPage", "limit", "%d is below 1", limit)
	}
	all, err := s.es.ListExecutionsPage(ctx, "", 1_000_000)
	if err != nil {
		return spi.Page{}, err
	}
	off := 0
	if cursor != "" {
		off, _ = strconv.Atoi(cursor)
	}
	ids := all.ExecutionIDs
	if off > len(ids) {
		off = len(ids)
	}
	end := min(off+limit, len(ids))
	p := spi.Page{ExecutionIDs: append([]string{}, ids[off:end]...)}
	if end < len(ids) {
		p.Next = strconv.Itoa(end)
	}
	return p, nil
}

// --- paging ignores limit.
type unboundedPage struct{ es }

func (s unboundedPage) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	if limit < 1 {
		return spi.Page{}, spi.Invalid("listExecutionsPage", "limit", "%d is below 1", limit)
	}
	p, err := s.es.ListExecutionsPage(ctx, cursor, 1_000_000)
	sort.Strings(p.ExecutionIDs)
	return p, err
}

// --- sealingCapability that names no cipher.
type malformedSealing struct{ es }

func (s malformedSealing) SealingCapability(ctx context.Context) (*spi.Sealing, error) {
	return &spi.Sealing{Covers: []string{"payload"}}, nil
}

// --- a version claim from a future major.
type futureClaim struct{ es }

func (s futureClaim) EventStoreSpiVersion() string { return "3.0.0" }

// EventStores lists the broken EventStores.
func EventStores() []Store[spi.EventStore] {
	return []Store[spi.EventStore]{
		{"off-by-one-read-range", "readRange includes its upper bound", "eventstore/read-range-bounds", func() spi.EventStore { return offByOneRange{newES()} }},
		{"non-atomic-batch", "a batch is written envelope by envelope, skipping taken sequences", "eventstore/append-atomic-batch", func() spi.EventStore { return nonAtomicBatch{newES()} }},
		{"overwrite-stale", "an append at a taken sequence overwrites the log from there", "eventstore/append-conflict", func() spi.EventStore { return overwriteStale{newES()} }},
		{"lost-concurrent-append", "check-then-act: racing appends both win and one is lost", "eventstore/append-concurrent-one-wins", func() spi.EventStore { return checkThenAct{newES(), &sync.Mutex{}} }},
		{"torn-on-cancel", "a cancelled append leaves the chunks written so far", "eventstore/append-cancel-not-torn", func() spi.EventStore { return tornOnCancel{newES()} }},
		{"lands-after-cancel", "an append that returned a cancellation error still commits later", "eventstore/append-cancel-not-torn", func() spi.EventStore { return landsAfterCancel{newES()} }},
		{"lossy-numbers", "payload numbers pass through float64", "eventstore/roundtrip-precision", func() spi.EventStore { return lossyNumbers{newES()} }},
		{"dropped-metadata", "metadata is not stored", "eventstore/roundtrip-values", func() spi.EventStore { return dropMetadata{newES()} }},
		{"prefix-leak", "reading an empty id returns the log of an id it prefixes", "eventstore/isolation", func() spi.EventStore { return prefixLeak{newES()} }},
		{"truncated-ids", "execution ids are cut to 255 bytes, so two long ids share one log", "eventstore/execution-ids", func() spi.EventStore { return truncatedIDs{newES()} }},
		{"stale-read-under-load", "reads during an append answer from a stale cache", "eventstore/linearizable", func() spi.EventStore {
			return staleUnderLoad{newES(), &atomic.Int64{}, &sync.Map{}}
		}},
		{"stale-fence-accepted", "a token below the current one still writes", "eventstore/fence-zombie", func() spi.EventStore { return newFenced(&fenceBook{stale: true}) }},
		{"stale-fence-accepted-concurrent", "a token below the current one still writes, seen among concurrent workers", "eventstore/linearizable-fenced", func() spi.EventStore { return newFenced(&fenceBook{stale: true}) }},
		{"fence-token-reused", "concurrent acquireFence calls can issue the same token", "eventstore/fence-monotonic", func() spi.EventStore { return newFenced(&fenceBook{racy: true}) }},
		{"fence-if-unconditional", "acquireFenceIf ignores the expected token", "eventstore/fence-if", func() spi.EventStore { return newFenced(&fenceBook{ignore: true}) }},
		{"anchor-ignored", "appendIfUnchanged never checks its anchor", "eventstore/append-if-unchanged", func() spi.EventStore { return anchorIgnored{newES()} }},
		{"incarnation-anchor-reused", "claims 2.6.0 but the anchor is the sequence-0 bytes and length, reused after delete+recreate", "eventstore/incarnation-anchor", func() spi.EventStore { return contentAnchor{newES(), "2.6.0"} }},
		{"store-now-seconds", "storeNow is in seconds", "eventstore/store-now", func() spi.EventStore { return nowInSeconds{newES()} }},
		{"delete-through-keeps-seq0", "deleteThrough leaves sequence 0", "eventstore/delete-through", func() spi.EventStore { return keepsSeqZero{newES(), &sync.Map{}} }},
		{"delete-through-past-through", "deleteThrough also deletes through+1", "eventstore/delete-through", func() spi.EventStore { return deletesPastThrough{newES()} }},
		{"delete-through-eats-concurrent", "deleteThrough also deletes appends that land while it runs", "eventstore/delete-through-concurrent", func() spi.EventStore { return throughRace{newES()} }},
		{"copy-prefix-one-more", "copyPrefix copies through+1", "eventstore/copy-prefix", func() spi.EventStore { return copyOneMore{newES()} }},
		{"delete-keeps-head", "deleteExecution keeps the next sequence, so the id cannot restart at 0", "eventstore/delete-execution", func() spi.EventStore { return deleteKeepsHead{newES()} }},
		{"offset-cursor", "page cursors are offsets, which shift under concurrent inserts", "eventstore/list-executions-concurrent", func() spi.EventStore { return offsetCursor{newES()} }},
		{"unbounded-page", "a page ignores its limit", "eventstore/list-executions-page", func() spi.EventStore { return unboundedPage{newES()} }},
		{"malformed-sealing", "sealingCapability names no cipher", "eventstore/sealing-capability", func() spi.EventStore { return malformedSealing{newES()} }},
		{"future-claim", "claims EventStore SPI 3.0.0", "eventstore/version-claim", func() spi.EventStore { return futureClaim{newES()} }},
		{"unsupported-everything", "declares append and read and answers unsupported to both", "eventstore/append-read-order", func() spi.EventStore { return unsupportedEverything{} }},
		{"fence-says-unsupported", "a fenced append is written unfenced and reported unsupported", "eventstore/fence-zombie", func() spi.EventStore { return fenceSaysUnsupported{newES()} }},
		{"if-unchanged-ignores-fence", "appendIfUnchanged drops the fence, so a zombie's late outcome writes", "eventstore/append-if-unchanged-fenced", func() spi.EventStore { return anchorFenceIgnored{newES()} }},
		{"global-anchor", "the anchor is a store-wide write counter: a write to another execution makes it stale", "eventstore/append-if-unchanged", func() spi.EventStore { return newGlobalAnchor() }},
		{"commit-then-report-cancel", "commits a cancelled append and then reports the cancellation", "eventstore/append-cancel-not-torn", func() spi.EventStore { return commitThenCancel{newES()} }},
		{"case-insensitive-ids", "ids that differ only by case share one log", "eventstore/execution-ids", func() spi.EventStore { return keyedIDs{newES(), lowerCase} }},
		{"trimmed-ids", "trailing spaces are cut from ids", "eventstore/execution-ids", func() spi.EventStore { return keyedIDs{newES(), trimTrailing} }},
		{"normalised-ids", "ids are brought to Unicode NFC", "eventstore/execution-ids", func() spi.EventStore { return keyedIDs{newES(), composeAcute} }},
		{"lists-deleted", "listExecutionsPage lists every id ever written, deleted and emptied ones included", "eventstore/list-executions-page", func() spi.EventStore {
			return listsDeleted{newES(), &sync.Mutex{}, map[string]bool{}}
		}},
		{"small-payloads", "payload and metadata over 1 KiB are refused", "eventstore/roundtrip-values", func() spi.EventStore { return smallPayloads{newES()} }},
		{"incarnation-in-events", "a recreated execution's envelopes carry metadata.incarnation", "eventstore/incarnation-anchor", newIncarnationInEvents},
		{"quarantine-streams-merged", "every __loom_quarantine__:<chainId> control stream shares one log", "eventstore/execution-ids", func() spi.EventStore { return keyedIDs{newES(), mergeQuarantine} }},
	}
}

// IncarnationReuseClaiming returns the incarnation-reusing store claiming version v; a claim below
// 2.3.0 must make the incarnation check skip, not fail.
func IncarnationReuseClaiming(v string) spi.EventStore { return contentAnchor{newES(), v} }
