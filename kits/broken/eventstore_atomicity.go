package broken

import (
	"context"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- lost concurrent append: check, then act; the later writer rewrites the whole log.
type checkThenAct struct {
	es
	mu   *sync.Mutex
	pace pace // how the window opens (see gap)
}

func (s checkThenAct) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := spi.ValidateBatch("append", id, events); err != nil || len(events) == 0 {
		return err
	}
	log, _ := s.es.Read(ctx, id)
	if events[0].Sequence != lastSeq(log)+1 {
		return &spi.ConflictError{ExecutionID: id, Expected: events[0].Sequence, Actual: lastSeq(log) + 1}
	}
	gap(s.pace, func() { time.Sleep(300 * time.Microsecond) }) // the window
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

// --- a batch is checked whole, then inserted one envelope per statement without a transaction.
type appendVisibleMidway struct {
	watchedES
	mu *sync.Mutex
}

func (s appendVisibleMidway) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := spi.ValidateBatch("append", id, events); err != nil || len(events) < 2 {
		if err != nil {
			return err
		}
		return s.es.Append(ctx, id, events, opts)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	log, err := s.es.Read(ctx, id)
	if err != nil {
		return err
	}
	if lastSeq(log)+1 != events[0].Sequence {
		return &spi.ConflictError{ExecutionID: id, Expected: events[0].Sequence, Actual: lastSeq(log) + 1}
	}
	for i, e := range events {
		if i > 0 {
			s.w.hold(ctx)
		}
		if err := s.es.Append(ctx, id, []spi.Envelope{e}, opts); err != nil {
			return err
		}
	}
	return nil
}

// --- deleteThrough deletes one sequence per statement, oldest first, without a transaction.
type deleteThroughVisibleMidway struct{ watchedES }

func (s deleteThroughVisibleMidway) DeleteThrough(ctx context.Context, id string, through int64) error {
	log, err := s.es.Read(ctx, id)
	if err != nil || len(log) == 0 || through < 0 {
		if err != nil {
			return err
		}
		return s.es.DeleteThrough(ctx, id, through)
	}
	for seq := log[0].Sequence; seq <= through && seq <= lastSeq(log); seq++ {
		if seq > log[0].Sequence {
			s.w.hold(ctx)
		}
		if err := s.es.DeleteThrough(ctx, id, seq); err != nil {
			return err
		}
	}
	return s.es.DeleteThrough(ctx, id, through)
}

// --- copyPrefix copies in chunks of ten envelopes, one statement each, without a transaction.
type copyPrefixVisibleMidway struct{ watchedES }

func (s copyPrefixVisibleMidway) CopyPrefix(ctx context.Context, source, target string, through int64) error {
	src, err := s.es.Read(ctx, source)
	if err != nil {
		return err
	}
	if through < 0 || through > lastSeq(src) {
		return s.es.CopyPrefix(ctx, source, target, through)
	}
	var out []spi.Envelope
	for _, e := range src {
		if e.Sequence <= through {
			e.ExecutionID = target
			out = append(out, e)
		}
	}
	for i := 0; i < len(out); i += 10 {
		if i > 0 {
			s.w.hold(ctx)
		}
		end := min(i+10, len(out))
		if err := s.es.Append(ctx, target, out[i:end], spi.AppendOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// --- deleteExecution deletes the log in chunks of ten, oldest first, one statement each.
type deleteExecutionVisibleMidway struct{ watchedES }

func (s deleteExecutionVisibleMidway) DeleteExecution(ctx context.Context, id string) error {
	log, err := s.es.Read(ctx, id)
	if err != nil {
		return err
	}
	for i := 9; i < len(log)-1; i += 10 {
		if err := s.es.DeleteThrough(ctx, id, log[i].Sequence); err != nil {
			return err
		}
		s.w.hold(ctx)
	}
	return s.es.DeleteExecution(ctx, id)
}

// --- commits the append whatever the context says, then reports the cancellation.
type commitThenCancel struct{ es }

func (s commitThenCancel) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	err := s.es.Append(context.WithoutCancel(ctx), id, events, opts)
	if err == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// watchedES, watchedAS and watchedSS are the memory stores with their reads recorded by a window,
// for the broken stores whose writes are visible half-done.
type watchedES struct {
	es
	w window
}

func newWatchedES() watchedES { return watchedES{newES(), newWindow()} }

func (s watchedES) Read(ctx context.Context, id string) (out []spi.Envelope, err error) {
	s.w.read(func() { out, err = s.es.Read(ctx, id) })
	return out, err
}
