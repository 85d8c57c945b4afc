package broken

import (
	"context"
	"errors"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- the sequence is checked before the fence: a zombie holding a stale token and sending a taken
// sequence learns "conflict" and retries instead of learning it was fenced.
type sequenceBeforeFence struct{ es }

func (s sequenceBeforeFence) Append(ctx context.Context, id string, evs []spi.Envelope, o spi.AppendOptions) error {
	err := s.es.Append(ctx, id, evs, o)
	if errors.Is(err, spi.ErrFenced) && len(evs) > 0 {
		if got, rerr := s.es.Read(ctx, id); rerr == nil && len(got) > 0 && evs[0].Sequence <= lastSeq(got) {
			return &spi.ConflictError{ExecutionID: id, Expected: evs[0].Sequence, Actual: lastSeq(got) + 1}
		}
	}
	return err
}

// --- deleteExecution returns early when no envelope matched (DELETE … ; if no row was affected,
// return), so an id fenced but never written keeps its current token.
type deleteUnwrittenKeepsFence struct{ es }

func (s deleteUnwrittenKeepsFence) DeleteExecution(ctx context.Context, id string) error {
	got, err := s.es.Read(ctx, id)
	if err != nil {
		return err
	}
	if len(got) == 0 {
		return nil
	}
	return s.es.DeleteExecution(ctx, id)
}

// --- copyPrefix takes a target deleteThrough emptied for a fresh one and writes the copy over it.
type copyOntoTrimmed struct{ es }

func (s copyOntoTrimmed) CopyPrefix(ctx context.Context, source, target string, through int64) error {
	err := s.es.CopyPrefix(ctx, source, target, through)
	if err != spi.ErrAlreadyExists {
		return err
	}
	if got, rerr := s.es.Read(ctx, target); rerr != nil || len(got) > 0 {
		return err
	}
	if err := s.es.DeleteExecution(ctx, target); err != nil {
		return err
	}
	return s.es.CopyPrefix(ctx, source, target, through)
}
