package broken

import (
	"context"

	"github.com/loom-kernel/loom-conform/spi"
)

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

// --- replaceSegments also removes the envelope after the range.
type replaceTooMuch struct{ as }

func (s replaceTooMuch) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	if err := spi.ValidateReplace(id, r, events); err != nil {
		return err
	}
	return s.as.ReplaceSegments(ctx, id, spi.SeqRange{From: r.From, Through: r.Through + 1}, events)
}

// --- replaceSegments with no envelopes takes the "nothing to write" shortcut.
type emptyReplaceNoop struct{ as }

func (s emptyReplaceNoop) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	if len(events) == 0 {
		return nil
	}
	return s.as.ReplaceSegments(ctx, id, r, events)
}

// --- replaceSegments re-encodes the new envelopes through another JSON library (empty arrays as
// objects, numbers printed with 14 digits).
type replaceReencodes struct{ as }

func (s replaceReencodes) ReplaceSegments(ctx context.Context, id string, r spi.SeqRange, events []spi.Envelope) error {
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		e.Payload, e.Metadata = reencodeLuaStyle(e.Payload), reencodeLuaStyle(e.Metadata)
		out[i] = e
	}
	return s.as.ReplaceSegments(ctx, id, r, out)
}
