package broken

import (
	"context"

	"github.com/loom-kernel/loom-conform/spi"
)

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

// --- an append whose envelopes equal the stored ones is taken for an idempotent retry.
type appendResendNoop struct{ es }

func (s appendResendNoop) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	log, err := s.es.Read(ctx, id)
	if err == nil && len(events) > 0 && len(log) > 0 {
		head := log[len(log)-1].Sequence
		first := log[0].Sequence
		same := true
		for _, e := range events {
			if e.Sequence > head || e.Sequence < first || !spi.SameEnvelope(log[e.Sequence-first], e) {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	return s.es.Append(ctx, id, events, opts)
}

// --- a batch is written one envelope at a time, each validated as it is written.
type validatesLazily struct{ es }

func (s validatesLazily) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	for _, e := range events {
		if err := s.es.Append(ctx, id, []spi.Envelope{e}, opts); err != nil {
			return err
		}
	}
	return nil
}
