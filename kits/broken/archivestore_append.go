package broken

import (
	"bytes"
	"context"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

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

// archiveComparing archives like the memory store but decides with same whether an envelope
// re-sent at an archived sequence equals the archived one (a retry, taken as a no-op).
type archiveComparing struct {
	as
	same func(archived, sent spi.Envelope) bool
}

func (s archiveComparing) Append(ctx context.Context, id string, events []spi.Envelope) error {
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
		case !s.same(old, e):
			return &spi.ConflictError{ExecutionID: id, Expected: e.Sequence, Actual: -1, Reason: "values differ"}
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	return s.as.Append(ctx, id, fresh)
}

// --- re-archived envelopes are compared after decoding through float64: values a double cannot
// tell apart count as equal and the retry is taken as a no-op.
func newArchiveFloatCompare() archiveComparing {
	return archiveComparing{newAS(), func(old, e spi.Envelope) bool {
		return floatEqual(old.Payload, e.Payload) && floatEqual(old.Metadata, e.Metadata) && old.ID == e.ID
	}}
}

// --- a re-archived envelope without metadata matches the archived one whatever its metadata (a
// nullable column compared only when set), so a retry that lost its metadata is taken as equal.
func newArchiveMetadataMatchesAny() archiveComparing {
	return archiveComparing{newAS(), func(old, e spi.Envelope) bool {
		if len(e.Metadata) == 0 {
			e.Metadata = old.Metadata
		}
		return spi.SameEnvelope(old, e)
	}}
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

// --- archived numbers pass through float64.
type lossyArchive struct{ as }

func (s lossyArchive) Append(ctx context.Context, id string, events []spi.Envelope) error {
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		e.Payload = viaFloat(e.Payload)
		e.Metadata = viaFloat(e.Metadata)
		out[i] = e
	}
	return s.as.Append(ctx, id, out)
}

// --- any envelope at an archived sequence is a conflict, an equal one included; a choice the spec
// leaves open (I-STORE-70).
func newArchiveEqualConflict() archiveComparing {
	return archiveComparing{newAS(), func(spi.Envelope, spi.Envelope) bool { return false }}
}

// --- an archive call keeps one envelope per sequence, the last one given, and archives them in
// ascending order, so a repeated or out-of-order sequence in one call is not refused.
type archiveBatchUnordered struct{ as }

func (s archiveBatchUnordered) Append(ctx context.Context, id string, events []spi.Envelope) error {
	last := map[int64]spi.Envelope{}
	for _, e := range events {
		last[e.Sequence] = e
	}
	out := make([]spi.Envelope, 0, len(last))
	for _, e := range last {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Sequence < out[j].Sequence })
	return s.as.Append(ctx, id, out)
}
