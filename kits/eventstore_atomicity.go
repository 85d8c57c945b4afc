package kits

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

func esConcurrentOneWins(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("race")
	const writers, rounds, size = 6, 8, 4
	var want []spi.Envelope
	head := int64(0)
	for r := 0; r < rounds; r++ {
		c.Progress(r, rounds)
		results := make([]error, writers)
		batches := make([][]spi.Envelope, writers)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for w := 0; w < writers; w++ {
			batches[w] = batch(x, head, size, fmt.Sprintf("r%dw%d", r, w))
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				defer c.Recover()
				<-gate
				results[w] = c.Store.Append(ctx, x, batches[w], spi.AppendOptions{})
			}(w)
		}
		close(gate)
		wg.Wait()
		winner := -1
		for w, err := range results {
			switch {
			case err == nil && winner >= 0:
				return c.Failf("Append", fmt.Sprintf("%d racing writers at seq %d", writers, head), "two winners", "exactly one winner")
			case err == nil:
				winner = w
			case !errors.Is(err, spi.ErrConflict):
				return c.Failf("Append", appendArgs(x, batches[w], spi.AppendOptions{})+" racing", err, "nil or a conflict")
			}
		}
		if winner < 0 {
			return c.Failf("Append", fmt.Sprintf("%d racing writers at seq %d", writers, head), "no winner", "exactly one winner")
		}
		want = append(want, batches[winner]...)
		head += size
		if err := expectLog(ctx, c, x, want, fmt.Sprintf("race round %d, writer %d won", r, winner)); err != nil {
			return err
		}
	}
	return nil
}

func esCancelNotTorn(ctx context.Context, c *EventStoreCase) error {
	// Each try appends one batch to a fresh execution under a context cancelled after a seeded
	// delay, then reads it back: the whole batch or nothing, and stored only when the append said
	// so. Fresh executions keep every read one batch long, however many tries.
	const tries, size = 16, 120
	type try struct {
		x      string
		stored bool
	}
	done := make([]try, 0, tries)
	for i := 0; i < tries; i++ {
		// Every fourth try starts already cancelled, so a store that commits first and checks
		// the context afterwards shows on every machine, however fast.
		delay := time.Duration(c.Rand.Intn(1500)) * time.Microsecond
		if i%4 == 0 {
			delay = 0
		}
		x := c.ExecID("cancel")
		b := batch(x, 0, size, fmt.Sprintf("try%d", i))
		cctx, cancel := context.WithTimeout(ctx, delay)
		err := c.Store.Append(cctx, x, b, spi.AppendOptions{})
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		got, rerr := readAll(ctx, c, x)
		if rerr != nil {
			return rerr
		}
		args := appendArgs(x, b, spi.AppendOptions{}) + fmt.Sprintf(" cancelled after %s", delay)
		switch {
		case len(got) == size && err != nil:
			// Stored: the append must say so. A store that commits and then reports the
			// cancellation makes its caller retry a write that landed (I-STORE-2).
			return c.Failf("Append", args, fmt.Sprintf("error %q but the batch is stored", err.Error()), "nil when the batch is stored (report the real outcome)")
		case len(got) == size:
			if d := c.Diff("Read", fmt.Sprintf("%q) after (cancelled append %d", x, i), b, got, envCmp); d != nil {
				return d
			}
		case len(got) != 0:
			return c.Failf("Append", args, fmt.Sprintf("%d envelopes stored (append returned %v)", len(got), err), fmt.Sprintf("0 or %d (whole batch or nothing)", size))
		case err == nil:
			return c.Failf("Append", args, "nil but the batch is not stored", "an error, or the batch stored")
		}
		done = append(done, try{x, len(got) == size})
		c.Progress(i+1, tries+1)
	}
	// Nothing lands after its call returned: every log is still what its read saw.
	time.Sleep(50 * time.Millisecond)
	for i, t := range done {
		got, err := readAll(ctx, c, t.x)
		if err != nil {
			return err
		}
		want := 0
		if t.stored {
			want = size
		}
		if len(got) != want {
			return c.Failf("Read", fmt.Sprintf("%q) 50ms after every cancelled append returned (try %d", t.x, i), fmt.Sprintf("%d envelopes", len(got)), fmt.Sprintf("%d, as right after the append", want))
		}
	}
	c.Progress(tries+1, tries+1)
	// The store is still usable.
	x := done[len(done)-1].x
	if done[len(done)-1].stored {
		return appendOK(ctx, c, x, batch(x, size, 1, "after"), spi.AppendOptions{})
	}
	return appendOK(ctx, c, x, batch(x, 0, 1, "after"), spi.AppendOptions{})
}

func esReadersWholeAppend(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("readers-append")
	const size, rounds = 6, 12
	return readersRace(ctx, c, 2, rounds, func(ctx context.Context, i int) error {
		return appendOK(ctx, c, x, batch(x, int64(i*size), size, fmt.Sprintf("b%d", i)), spi.AppendOptions{})
	}, func(_, i int, after bool) error {
		got, err := readAll(ctx, c, x)
		if err != nil {
			return err
		}
		why := wholeBatches(got, 0, size)
		if why == "" && after && len(got) != (i+1)*size {
			why = fmt.Sprintf("%d envelopes after batch %d returned", len(got), i+1)
		}
		if why != "" {
			return c.Failf("Read", fmt.Sprintf("%q) racing appends of batches of %d (", x, size), why, "whole batches only")
		}
		return nil
	})
}

func esReadersWholeDeleteThrough(ctx context.Context, c *EventStoreCase) error {
	dt := c.Store.(spi.ThroughDeleter)
	x := c.ExecID("readers-delete")
	const step, n = 5, 60
	for from := 0; from < n; from += 30 {
		if err := appendOK(ctx, c, x, batch(x, int64(from), 30, "kept"), spi.AppendOptions{}); err != nil {
			return err
		}
	}
	// Round i deletes through step*(i+1)-1, leaving the tail from step*(i+1).
	return readersRace(ctx, c, 2, n/step-1, func(ctx context.Context, i int) error {
		through := int64(step*(i+1) - 1)
		if err := dt.DeleteThrough(ctx, x, through); err != nil {
			return c.Failf("DeleteThrough", fmt.Sprintf("%q, %d", x, through), err, "nil")
		}
		return nil
	}, func(_, i int, after bool) error {
		got, err := readAll(ctx, c, x)
		if err != nil {
			return err
		}
		if len(got) == 0 {
			return c.Failf("Read", fmt.Sprintf("%q) racing deleteThrough in steps of %d (", x, step), "no envelopes", fmt.Sprintf("the tail through %d", n-1))
		}
		first := got[0].Sequence
		why := ""
		switch {
		case first%step != 0:
			why = fmt.Sprintf("first sequence %d: a deleteThrough seen half done", first)
		case got[len(got)-1].Sequence != n-1 || int64(len(got)) != n-first:
			why = fmt.Sprintf("%d envelopes from %d to %d", len(got), first, got[len(got)-1].Sequence)
		case after && first != int64(step*(i+1)):
			why = fmt.Sprintf("first sequence %d after deleteThrough %d returned", first, step*(i+1)-1)
		}
		if why != "" {
			return c.Failf("Read", fmt.Sprintf("%q) racing deleteThrough in steps of %d (", x, step), why, fmt.Sprintf("a dense tail to %d starting at a multiple of %d", n-1, step))
		}
		return nil
	})
}

func esReadersWholeCopyPrefix(ctx context.Context, c *EventStoreCase) error {
	cp := c.Store.(spi.PrefixCopier)
	src := c.ExecID("copy-source")
	const n, copies = 40, 8
	if err := appendOK(ctx, c, src, batch(src, 0, n, "src"), spi.AppendOptions{}); err != nil {
		return err
	}
	targets := make([]string, copies)
	for i := range targets {
		targets[i] = c.ExecID("copy-target")
	}
	return readersRace(ctx, c, 2, copies, func(ctx context.Context, i int) error {
		if err := cp.CopyPrefix(ctx, src, targets[i], n-1); err != nil {
			return c.Failf("CopyPrefix", fmt.Sprintf("%q, %q, %d", src, targets[i], n-1), err, "nil")
		}
		return nil
	}, func(_, i int, after bool) error {
		t := targets[i]
		got, err := readAll(ctx, c, t)
		if err != nil {
			return err
		}
		if (len(got) != 0 || after) && len(got) != n {
			return c.Failf("Read", fmt.Sprintf("%q) racing CopyPrefix(%q, it, %d) (", t, src, n-1), fmt.Sprintf("%d envelopes", len(got)), fmt.Sprintf("0 or %d (%d once it returned)", n, n))
		}
		return nil
	})
}

func esReadersWholeDeleteExecution(ctx context.Context, c *EventStoreCase) error {
	d := c.Store.(spi.ExecutionDeleter)
	x := c.ExecID("readers-delete-execution")
	const n, rounds = 40, 8
	if err := appendOK(ctx, c, x, batch(x, 0, n, "r0"), spi.AppendOptions{}); err != nil {
		return err
	}
	// Round i deletes the log and writes a new one of n envelopes.
	return readersRace(ctx, c, 2, rounds, func(ctx context.Context, i int) error {
		if err := d.DeleteExecution(ctx, x); err != nil {
			return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
		}
		return appendOK(ctx, c, x, batch(x, 0, n, fmt.Sprintf("r%d", i+1)), spi.AppendOptions{})
	}, func(_, _ int, after bool) error {
		got, err := readAll(ctx, c, x)
		if err != nil {
			return err
		}
		why := wholeBatches(got, 0, n)
		if why == "" && after && len(got) != n {
			why = "no envelopes after the new log was appended"
		}
		if why != "" {
			return c.Failf("Read", fmt.Sprintf("%q) racing DeleteExecution and a new log of %d (", x, n), why, fmt.Sprintf("0 or %d envelopes from 0", n))
		}
		return nil
	})
}
