package broken

import (
	"context"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

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
type throughRace struct {
	es
	pace pace // how the window opens (see gap)
}

func (s throughRace) DeleteThrough(ctx context.Context, id string, through int64) error {
	before, _ := s.es.Read(ctx, id)
	gap(s.pace, func() { time.Sleep(2 * time.Millisecond) })
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

// --- sealingCapability that names no cipher.
type malformedSealing struct{ es }

func (s malformedSealing) SealingCapability(ctx context.Context) (*spi.Sealing, error) {
	return &spi.Sealing{Covers: []string{"payload"}}, nil
}

// --- deleteThrough with a negative through deletes nothing and succeeds; a choice the spec
// leaves open (I-STORE-68).
type negativeThroughNoop struct{ es }

func (s negativeThroughNoop) DeleteThrough(ctx context.Context, id string, through int64) error {
	if through < 0 {
		return nil
	}
	return s.es.DeleteThrough(ctx, id, through)
}

// --- deleteExecution of an id with no stored envelope answers not found; a choice the spec
// leaves open (I-STORE-71).
type deleteAbsentNotFound struct{ es }

func (s deleteAbsentNotFound) DeleteExecution(ctx context.Context, id string) error {
	got, err := s.es.Read(ctx, id)
	if err != nil {
		return err
	}
	// The delete still runs, so a fence the id holds moves (I-STORE-82); only the answer differs.
	if err := s.es.DeleteExecution(ctx, id); err != nil {
		return err
	}
	if len(got) == 0 {
		return spi.ErrNotFound
	}
	return nil
}
