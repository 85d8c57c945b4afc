package kits

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

func esReadRange(ctx context.Context, c *EventStoreCase) error {
	rr := c.Store.(spi.RangeReader)
	x := c.ExecID("range")
	all := batch(x, 0, 10, "range")
	if err := appendOK(ctx, c, x, all, spi.AppendOptions{}); err != nil {
		return err
	}
	var errs []error
	for _, r := range [][2]int64{{0, 10}, {0, -1}, {3, 7}, {0, 1}, {9, 10}, {4, 5}, {5, 5}, {7, 3}, {8, 100}, {10, -1}, {25, 30}, {0, 0}} {
		want := []spi.Envelope{}
		for _, e := range all {
			if e.Sequence >= r[0] && (r[1] < 0 || e.Sequence < r[1]) {
				want = append(want, e)
			}
		}
		got, err := rr.ReadRange(ctx, x, r[0], r[1])
		args := fmt.Sprintf("%q, %d, %d", x, r[0], r[1])
		if err != nil {
			errs = append(errs, c.Failf("ReadRange", args, err, "nil"))
			continue
		}
		if got == nil {
			got = []spi.Envelope{}
		}
		if d := c.Diff("ReadRange", args, seqs(want), seqs(got)); d != nil {
			errs = append(errs, d)
		} else if d := c.Diff("ReadRange", args, want, got, envCmp); d != nil {
			errs = append(errs, d)
		}
	}
	_, err := rr.ReadRange(ctx, x, -1, 3)
	if e := expectErr(c, "ReadRange", fmt.Sprintf("%q, -1, 3", x), err, spi.ErrInvalidArgument); e != nil {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func acquire(ctx context.Context, c *EventStoreCase, x string) (spi.Fence, error) {
	f, err := c.Store.(spi.Fencer).AcquireFence(ctx, x)
	if err != nil {
		return f, c.Failf("AcquireFence", fmt.Sprintf("%q", x), err, "nil")
	}
	return f, nil
}

func esFenceZombie(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("zombie")
	old, err := acquire(ctx, c, x)
	if err != nil {
		return err
	}
	first := batch(x, 0, 2, "old-holder")
	if err := appendOK(ctx, c, x, first, spi.AppendOptions{Fence: old.Token}); err != nil {
		return err
	}
	nw, err := acquire(ctx, c, x)
	if err != nil {
		return err
	}
	if nw.Token <= old.Token {
		return c.Failf("AcquireFence", fmt.Sprintf("%q) after token (%d", x, old.Token), nw.Token, fmt.Sprintf("> %d", old.Token))
	}
	zombie := batch(x, 2, 2, "zombie")
	err = c.Store.Append(ctx, x, zombie, spi.AppendOptions{Fence: old.Token})
	if e := expectErr(c, "Append", appendArgs(x, zombie, spi.AppendOptions{Fence: old.Token})+" (stale)", err, spi.ErrFenced); e != nil {
		return e
	}
	var fe *spi.FencedError
	if errors.As(err, &fe) && !fe.CurrentUnknown && fe.Current != nw.Token {
		return c.Failf("Append", fmt.Sprintf("%q, [seq 2..3], stale fence %d) FencedError.Current (after a newer fence %d", x, old.Token, nw.Token), fe.Current, nw.Token)
	}
	// A forged future token is refused too.
	forged := spi.AppendOptions{Fence: nw.Token + 1000}
	err = c.Store.Append(ctx, x, zombie, forged)
	if e := expectErr(c, "Append", appendArgs(x, zombie, forged)+" (forged)", err, spi.ErrFenced); e != nil {
		return e
	}
	if e := expectLog(ctx, c, x, first, "a zombie append"); e != nil {
		return e
	}
	live := batch(x, 2, 2, "new-holder")
	if err := appendOK(ctx, c, x, live, spi.AppendOptions{Fence: nw.Token}); err != nil {
		return err
	}
	// Unfenced writes are not fence-checked (I-STORE-6).
	tail := batch(x, 4, 1, "unfenced")
	if err := appendOK(ctx, c, x, tail, spi.AppendOptions{}); err != nil {
		return err
	}
	return expectLog(ctx, c, x, append(append(first, live...), tail...), "the new holder's append")
}

func esFenceMonotonic(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("fences")
	const n = 8
	tokens := make([]int64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer c.Recover()
			f, err := c.Store.(spi.Fencer).AcquireFence(ctx, x)
			tokens[i], errs[i] = f.Token, err
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return c.Failf("AcquireFence", fmt.Sprintf("%q) concurrent call (%d", x, i), err, "nil")
		}
	}
	sorted := append([]int64(nil), tokens...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	for i := 1; i < n; i++ {
		if sorted[i] == sorted[i-1] {
			return c.Failf("AcquireFence", fmt.Sprintf("%q ×%d concurrently", x, n), fmt.Sprintf("token %d issued twice", sorted[i]), "distinct tokens")
		}
	}
	last := sorted[n-1]
	for i, tok := range sorted[:n-1] {
		b := batch(x, 0, 1, fmt.Sprintf("stale%d", i))
		err := c.Store.Append(ctx, x, b, spi.AppendOptions{Fence: tok})
		if e := expectErr(c, "Append", appendArgs(x, b, spi.AppendOptions{Fence: tok}), err, spi.ErrFenced); e != nil {
			return e
		}
	}
	if err := appendOK(ctx, c, x, batch(x, 0, 1, "current"), spi.AppendOptions{Fence: last}); err != nil {
		return err
	}
	f, err := acquire(ctx, c, x)
	if err != nil {
		return err
	}
	if f.Token <= last {
		return c.Failf("AcquireFence", fmt.Sprintf("%q) after (%d", x, last), f.Token, fmt.Sprintf("> %d", last))
	}
	return nil
}

// raceDelays are the pauses a racing check picks from (seeded) before its second call.
var raceDelays = []time.Duration{0, 20 * time.Microsecond, 100 * time.Microsecond, 500 * time.Microsecond, 2 * time.Millisecond}

func esFenceRace(ctx context.Context, c *EventStoreCase) error {
	const rounds = 16
	for r := 0; r < rounds; r++ {
		c.Progress(r, rounds)
		x := c.ExecID("fence-race")
		old, err := acquire(ctx, c, x)
		if err != nil {
			return err
		}
		b := batch(x, 0, 2, "old-holder")
		done := make(chan error, 1)
		started := make(chan struct{})
		go func() {
			defer c.Recover()
			close(started)
			done <- c.Store.Append(ctx, x, b, spi.AppendOptions{Fence: old.Token})
		}()
		// A new holder fences x while the old holder's append is in flight (after a seeded pause
		// of 0 to 2 ms, so the rounds meet the append at different points), then reads.
		<-started
		if err := sleep(ctx, raceDelays[c.Rand.Intn(len(raceDelays))]); err != nil {
			<-done
			return err
		}
		nw, err := acquire(ctx, c, x)
		if err != nil {
			<-done
			return err
		}
		seen, err := readAll(ctx, c, x)
		if err != nil {
			<-done
			return err
		}
		var aerr error
		select {
		case aerr = <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
		final, err := readAll(ctx, c, x)
		if err != nil {
			return err
		}
		args := appendArgs(x, b, spi.AppendOptions{Fence: old.Token}) + fmt.Sprintf(") racing (AcquireFence, which returned token %d, then a read", nw.Token)
		switch {
		case aerr != nil && !errors.Is(aerr, spi.ErrFenced):
			return c.Failf("Append", args, aerr, "nil or fenced")
		case aerr != nil && len(final) != 0:
			return c.Failf("Append", args, fmt.Sprintf("fenced, but %d envelopes of it stored", len(final)), "fenced and nothing stored")
		case aerr == nil && len(seen) == 0 && len(final) != 0:
			return c.Failf("Append", args, "nil: it landed after the newer fence returned and the read after it saw nothing", "fenced, or landed before the newer fence (so that read sees it)")
		case aerr == nil:
			if d := c.Diff("Read", fmt.Sprintf("%q) after (an append with fence %d that returned nil racing AcquireFence (token %d)", x, old.Token, nw.Token), b, nonNil(final), envCmp); d != nil {
				return d
			}
		}
		if len(seen) != 0 && len(seen) != len(b) {
			return c.Failf("Read", fmt.Sprintf("%q) after a newer fence, racing an append of 2 (", x), fmt.Sprintf("%d envelopes", len(seen)), "0 or 2")
		}
	}
	return nil
}

func esFenceIf(ctx context.Context, c *EventStoreCase) error {
	cf := c.Store.(spi.ConditionalFencer)
	x := c.ExecID("fence-if")
	f1, err := cf.AcquireFenceIf(ctx, x, 0)
	if err != nil {
		return c.Failf("AcquireFenceIf", fmt.Sprintf("%q, 0", x), err, "nil (never fenced)")
	}
	if f1.Token <= 0 {
		return c.Failf("AcquireFenceIf", fmt.Sprintf("%q, 0", x), f1.Token, "> 0")
	}
	_, err = cf.AcquireFenceIf(ctx, x, 0)
	if e := expectErr(c, "AcquireFenceIf", fmt.Sprintf("%q, 0) after (%d", x, f1.Token), err, spi.ErrFenced); e != nil {
		return e
	}
	var fe *spi.FencedError
	if errors.As(err, &fe) && !fe.CurrentUnknown && fe.Current != f1.Token {
		return c.Failf("AcquireFenceIf", fmt.Sprintf("%q, 0) FencedError.Current (", x), fe.Current, f1.Token)
	}
	_, err = cf.AcquireFenceIf(ctx, x, f1.Token+1)
	if e := expectErr(c, "AcquireFenceIf", fmt.Sprintf("%q, %d) with current (%d", x, f1.Token+1, f1.Token), err, spi.ErrFenced); e != nil {
		return e
	}
	// The failed attempts did not move the fence: f1 still writes.
	if err := appendOK(ctx, c, x, batch(x, 0, 1, "f1"), spi.AppendOptions{Fence: f1.Token}); err != nil {
		return err
	}
	f2, err := cf.AcquireFenceIf(ctx, x, f1.Token)
	if err != nil {
		return c.Failf("AcquireFenceIf", fmt.Sprintf("%q, %d", x, f1.Token), err, "nil")
	}
	if f2.Token <= f1.Token {
		return c.Failf("AcquireFenceIf", fmt.Sprintf("%q, %d", x, f1.Token), f2.Token, fmt.Sprintf("> %d", f1.Token))
	}
	b := batch(x, 1, 1, "f1-stale")
	err = c.Store.Append(ctx, x, b, spi.AppendOptions{Fence: f1.Token})
	return expectErr(c, "Append", appendArgs(x, b, spi.AppendOptions{Fence: f1.Token}), err, spi.ErrFenced)
}

func esFenceIfRace(ctx context.Context, c *EventStoreCase) error {
	cf := c.Store.(spi.ConditionalFencer)
	for round := 0; round < 5; round++ {
		c.Progress(round, 5)
		x := c.ExecID("fence-if-race")
		const n = 6
		errs := make([]error, n)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				defer c.Recover()
				<-gate
				_, errs[i] = cf.AcquireFenceIf(ctx, x, 0)
			}(i)
		}
		close(gate)
		wg.Wait()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, spi.ErrFenced):
				return c.Failf("AcquireFenceIf", fmt.Sprintf("%q, 0) racing (", x), err, "nil or fenced")
			}
		}
		if wins != 1 {
			return c.Failf("AcquireFenceIf", fmt.Sprintf("%q, 0) ×%d racing (", x, n), fmt.Sprintf("%d winners", wins), "exactly 1")
		}
	}
	return nil
}

func observe(ctx context.Context, c *EventStoreCase, x string) (spi.Anchor, error) {
	a, err := c.Store.(spi.ConditionalAppender).Observe(ctx, x)
	if err != nil {
		return a, c.Failf("Observe", fmt.Sprintf("%q", x), err, "nil")
	}
	return a, nil
}

func esAppendIfUnchanged(ctx context.Context, c *EventStoreCase) error {
	ca := c.Store.(spi.ConditionalAppender)
	x := c.ExecID("if-unchanged")
	a0, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	first := batch(x, 0, 2, "first")
	if err := ca.AppendIfUnchanged(ctx, x, a0, first, spi.AppendOptions{}); err != nil {
		return c.Failf("AppendIfUnchanged", fmt.Sprintf("%q, fresh anchor of empty log, [seq 0..1]", x), err, "nil")
	}
	// a0 is now stale.
	b := batch(x, 2, 1, "stale")
	err = ca.AppendIfUnchanged(ctx, x, a0, b, spi.AppendOptions{})
	if e := expectErr(c, "AppendIfUnchanged", fmt.Sprintf("%q, anchor before 2 appends, [seq 2]", x), err, spi.ErrConflict); e != nil {
		return e
	}
	a1, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	if a1 == a0 {
		return c.Failf("Observe", fmt.Sprintf("%q) after an append (", x), fmt.Sprintf("the same anchor %q", a1), "a different anchor")
	}
	// Someone else appends: a1 goes stale.
	other := batch(x, 2, 1, "other")
	if err := appendOK(ctx, c, x, other, spi.AppendOptions{}); err != nil {
		return err
	}
	late := batch(x, 3, 1, "late")
	err = ca.AppendIfUnchanged(ctx, x, a1, late, spi.AppendOptions{})
	if e := expectErr(c, "AppendIfUnchanged", fmt.Sprintf("%q, anchor before a concurrent append, [seq 3]", x), err, spi.ErrConflict); e != nil {
		return e
	}
	if e := expectLog(ctx, c, x, append(first, other...), "refused conditional appends"); e != nil {
		return e
	}
	a2, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	if err := ca.AppendIfUnchanged(ctx, x, a2, late, spi.AppendOptions{}); err != nil {
		return c.Failf("AppendIfUnchanged", fmt.Sprintf("%q, fresh anchor, [seq 3]", x), err, "nil")
	}
	// An anchor names one execution's log: an append to another execution between Observe and
	// AppendIfUnchanged leaves it fresh (I-STORE-8).
	a3, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	y := c.ExecID("if-unchanged-other")
	if err := appendOK(ctx, c, y, batch(y, 0, 1, "elsewhere"), spi.AppendOptions{}); err != nil {
		return err
	}
	next := batch(x, 4, 1, "after-other")
	if err := ca.AppendIfUnchanged(ctx, x, a3, next, spi.AppendOptions{}); err != nil {
		return c.Failf("AppendIfUnchanged", fmt.Sprintf("%q, anchor taken before an append to another execution %q, [seq 4]", x, y), err, "nil")
	}
	return expectLog(ctx, c, x, append(append(append([]spi.Envelope{}, first...), other...), append(late, next...)...), "conditional appends")
}

// esAppendIfUnchangedFenced: a late outcome of a zombie worker carries its stale fence; the
// conditional append must refuse it like append does, even on a fresh anchor (spec §6, I-STORE-8).
func esAppendIfUnchangedFenced(ctx context.Context, c *EventStoreCase) error {
	ca := c.Store.(spi.ConditionalAppender)
	x := c.ExecID("if-unchanged-fenced")
	f1, err := acquire(ctx, c, x)
	if err != nil {
		return err
	}
	f2, err := acquire(ctx, c, x)
	if err != nil {
		return err
	}
	a, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	zombie := batch(x, 0, 1, "zombie-outcome")
	err = ca.AppendIfUnchanged(ctx, x, a, zombie, spi.AppendOptions{Fence: f1.Token})
	if e := expectErr(c, "AppendIfUnchanged", fmt.Sprintf("%q, fresh anchor, [seq 0], stale fence %d (current %d)", x, f1.Token, f2.Token), err, spi.ErrFenced); e != nil {
		return e
	}
	if e := expectLog(ctx, c, x, nil, "a conditional append with a stale fence"); e != nil {
		return e
	}
	live := batch(x, 0, 1, "live-outcome")
	if err := ca.AppendIfUnchanged(ctx, x, a, live, spi.AppendOptions{Fence: f2.Token}); err != nil {
		return c.Failf("AppendIfUnchanged", fmt.Sprintf("%q, fresh anchor, [seq 0], current fence %d", x, f2.Token), err, "nil")
	}
	return expectLog(ctx, c, x, live, "a conditional append with the current fence")
}

func esIncarnation(ctx context.Context, c *EventStoreCase) error {
	ca := c.Store.(spi.ConditionalAppender)
	del := c.Store.(spi.ExecutionDeleter)
	x := c.ExecID("incarnation")
	seq0 := batch(x, 0, 1, "same-bytes")
	if err := appendOK(ctx, c, x, seq0, spi.AppendOptions{}); err != nil {
		return err
	}
	before, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	if err := del.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
	}
	if err := appendOK(ctx, c, x, seq0, spi.AppendOptions{}); err != nil {
		return err
	}
	after, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	if after == before {
		return c.Failf("Observe", fmt.Sprintf("%q) after delete and a byte-identical recreate (", x), fmt.Sprintf("the old anchor %q", after), "a new anchor (new incarnation)")
	}
	b := batch(x, 1, 1, "zombie-late-outcome")
	err = ca.AppendIfUnchanged(ctx, x, before, b, spi.AppendOptions{})
	if e := expectErr(c, "AppendIfUnchanged", fmt.Sprintf("%q, anchor of the previous incarnation, [seq 1]", x), err, spi.ErrConflict); e != nil {
		return e
	}
	// The incarnation lives in store metadata only: the log is exactly what was written.
	return expectLog(ctx, c, x, seq0, "delete and recreate")
}

func esStoreNow(ctx context.Context, c *EventStoreCase) error {
	clk := c.Store.(spi.Clock)
	prev := int64(-1)
	for i := 0; i < 5; i++ {
		local := time.Now().UnixMilli()
		now, err := clk.StoreNow(ctx)
		if err != nil {
			return c.Failf("StoreNow", "", err, "nil")
		}
		if d := now - local; d > time.Hour.Milliseconds() || d < -time.Hour.Milliseconds() {
			return c.Failf("StoreNow", "", now, fmt.Sprintf("epoch ms within an hour of %d", local))
		}
		if now < prev {
			return c.Failf("StoreNow", fmt.Sprintf("call %d", i), now, fmt.Sprintf(">= %d (previous call)", prev))
		}
		prev = now
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

func esDeleteThrough(ctx context.Context, c *EventStoreCase) error {
	dt := c.Store.(spi.ThroughDeleter)
	x, y := c.ExecID("through"), c.ExecID("through-other")
	all := batch(x, 0, 10, "dt")
	ys := batch(y, 0, 3, "dt-other")
	if err := appendOK(ctx, c, x, all, spi.AppendOptions{}); err != nil {
		return err
	}
	if err := appendOK(ctx, c, y, ys, spi.AppendOptions{}); err != nil {
		return err
	}
	if err := dt.DeleteThrough(ctx, x, 0); err != nil {
		return c.Failf("DeleteThrough", fmt.Sprintf("%q, 0", x), err, "nil")
	}
	if e := expectLog(ctx, c, x, all[1:], "DeleteThrough(0): sequence 0 included"); e != nil {
		return e
	}
	if err := dt.DeleteThrough(ctx, x, 4); err != nil {
		return c.Failf("DeleteThrough", fmt.Sprintf("%q, 4", x), err, "nil")
	}
	if e := expectLog(ctx, c, x, all[5:], "DeleteThrough(4)"); e != nil {
		return e
	}
	// Idempotent and the head is kept: seq 5 is still taken, 10 is next.
	if err := dt.DeleteThrough(ctx, x, 4); err != nil {
		return c.Failf("DeleteThrough", fmt.Sprintf("%q, 4) again (", x), err, "nil")
	}
	b := batch(x, 5, 1, "reuse")
	if e := expectErr(c, "Append", appendArgs(x, b, spi.AppendOptions{})+" after DeleteThrough(4)", c.Store.Append(ctx, x, b, spi.AppendOptions{}), spi.ErrConflict); e != nil {
		return e
	}
	next := batch(x, 10, 2, "next")
	if err := appendOK(ctx, c, x, next, spi.AppendOptions{}); err != nil {
		return err
	}
	if e := expectLog(ctx, c, x, append(append([]spi.Envelope{}, all[5:]...), next...), "DeleteThrough(4) and an append at 10"); e != nil {
		return e
	}
	if e := expectLog(ctx, c, y, ys, "DeleteThrough on another execution"); e != nil {
		return e
	}
	// Beyond the tail: everything stored goes, the head stays.
	if err := dt.DeleteThrough(ctx, x, 100); err != nil {
		return c.Failf("DeleteThrough", fmt.Sprintf("%q, 100", x), err, "nil")
	}
	if e := expectLog(ctx, c, x, nil, "DeleteThrough(100)"); e != nil {
		return e
	}
	if err := appendOK(ctx, c, x, batch(x, 12, 1, "after-all"), spi.AppendOptions{}); err != nil {
		return err
	}
	err := dt.DeleteThrough(ctx, x, -1)
	return expectErr(c, "DeleteThrough", fmt.Sprintf("%q, -1", x), err, spi.ErrInvalidArgument)
}

func esDeleteThroughConcurrent(ctx context.Context, c *EventStoreCase) error {
	dt := c.Store.(spi.ThroughDeleter)
	// Eight rounds: an append must land while the delete runs, which a loaded machine may not
	// schedule in one round (three rounds caught a delete that eats racing appends on 99 of 100
	// seeds under load; TestSeedDependence in kits/broken measures it).
	for round := 0; round < 8; round++ {
		c.Progress(round, 8)
		x := c.ExecID("through-race")
		if err := appendOK(ctx, c, x, batch(x, 0, 10, "archived"), spi.AppendOptions{}); err != nil {
			return err
		}
		// The appender keeps appending, one envelope at a time, from before the delete starts until
		// after it returned, so appends land while it runs.
		var want []spi.Envelope
		var appendErr error
		started := make(chan struct{})
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer c.Recover()
			for s := int64(10); ; s++ {
				select {
				case <-stop:
					if s >= 20 {
						return
					}
				default:
				}
				e := batch(x, s, 1, "live")
				if err := c.Store.Append(ctx, x, e, spi.AppendOptions{}); err != nil {
					appendErr = c.Failf("Append", appendArgs(x, e, spi.AppendOptions{})+" racing DeleteThrough(9)", err, "nil")
					return
				}
				want = append(want, e...)
				if s == 12 {
					close(started)
				}
				if s > 100000 {
					return
				}
			}
		}()
		select {
		case <-started:
		case <-done:
		}
		derr := dt.DeleteThrough(ctx, x, 9)
		close(stop)
		<-done
		if appendErr != nil {
			return appendErr
		}
		if derr != nil {
			return c.Failf("DeleteThrough", fmt.Sprintf("%q, 9", x), derr, "nil")
		}
		if e := expectLog(ctx, c, x, want, fmt.Sprintf("DeleteThrough(9) racing appends of 10..%d", 9+len(want))); e != nil {
			return e
		}
	}
	return nil
}

func esSealing(ctx context.Context, c *EventStoreCase) error {
	sr := c.Store.(spi.SealingReporter)
	a, err := sr.SealingCapability(ctx)
	if err != nil {
		return c.Failf("SealingCapability", "", err, "nil")
	}
	b, err := sr.SealingCapability(ctx)
	if err != nil {
		return c.Failf("SealingCapability", "", err, "nil")
	}
	if d := c.Diff("SealingCapability", "second call", a, b); d != nil {
		return d
	}
	if a != nil && (a.Cipher == "" || len(a.Covers) == 0) {
		return c.Failf("SealingCapability", "", fmt.Sprintf("%+v", *a), "nil, or a cipher and what it covers")
	}
	return nil
}

func esCopyPrefix(ctx context.Context, c *EventStoreCase) error {
	cp := c.Store.(spi.PrefixCopier)
	src, dst := c.ExecID("copy-src"), c.ExecID("copy-dst")
	all := batch(src, 0, 6, "src")
	all[2].Metadata = []byte(`{"kernel":true}`)
	if err := appendOK(ctx, c, src, all, spi.AppendOptions{}); err != nil {
		return err
	}
	if err := cp.CopyPrefix(ctx, src, dst, 3); err != nil {
		return c.Failf("CopyPrefix", fmt.Sprintf("%q, %q, 3", src, dst), err, "nil")
	}
	var want []spi.Envelope
	for _, e := range all[:4] {
		e.ExecutionID = dst
		want = append(want, e)
	}
	if e := expectLog(ctx, c, dst, want, "CopyPrefix(through 3)"); e != nil {
		return e
	}
	if e := expectLog(ctx, c, src, all, "CopyPrefix from it"); e != nil {
		return e
	}
	next := batch(dst, 4, 1, "dst-next")
	if err := appendOK(ctx, c, dst, next, spi.AppendOptions{}); err != nil {
		return err
	}
	err := cp.CopyPrefix(ctx, src, dst, 1)
	if e := expectErr(c, "CopyPrefix", fmt.Sprintf("%q, %q (non-empty), 1", src, dst), err, spi.ErrAlreadyExists); e != nil {
		return e
	}
	other := c.ExecID("copy-dst2")
	err = cp.CopyPrefix(ctx, src, other, 6)
	if e := expectErr(c, "CopyPrefix", fmt.Sprintf("%q, %q, 6 (past the tail 5)", src, other), err, spi.ErrInvalidArgument); e != nil {
		return e
	}
	return expectLog(ctx, c, other, nil, "a refused CopyPrefix")
}

func esDeleteExecution(ctx context.Context, c *EventStoreCase) error {
	del := c.Store.(spi.ExecutionDeleter)
	x, y := c.ExecID("del"), c.ExecID("del-keep")
	if err := appendOK(ctx, c, x, batch(x, 0, 4, "gone"), spi.AppendOptions{}); err != nil {
		return err
	}
	keep := batch(y, 0, 3, "kept")
	if err := appendOK(ctx, c, y, keep, spi.AppendOptions{}); err != nil {
		return err
	}
	if err := del.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
	}
	if e := expectLog(ctx, c, x, nil, "DeleteExecution"); e != nil {
		return e
	}
	if e := expectLog(ctx, c, y, keep, "DeleteExecution of another id"); e != nil {
		return e
	}
	if err := del.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q) again (", x), err, "nil (idempotent)")
	}
	if err := del.DeleteExecution(ctx, c.ExecID("del-unknown")); err != nil {
		return c.Failf("DeleteExecution", "unknown id", err, "nil")
	}
	again := batch(x, 0, 2, "reborn")
	if err := appendOK(ctx, c, x, again, spi.AppendOptions{}); err != nil {
		return err
	}
	return expectLog(ctx, c, x, again, "DeleteExecution and a new append at 0")
}

func esDeleteFences(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("del-fence")
	f, err := acquire(ctx, c, x)
	if err != nil {
		return err
	}
	if err := appendOK(ctx, c, x, batch(x, 0, 1, "old"), spi.AppendOptions{Fence: f.Token}); err != nil {
		return err
	}
	if err := c.Store.(spi.ExecutionDeleter).DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
	}
	b := batch(x, 0, 1, "zombie")
	err = c.Store.Append(ctx, x, b, spi.AppendOptions{Fence: f.Token})
	if e := expectErr(c, "Append", appendArgs(x, b, spi.AppendOptions{Fence: f.Token})+" after DeleteExecution", err, spi.ErrFenced); e != nil {
		return e
	}
	f2, err := acquire(ctx, c, x)
	if err != nil {
		return err
	}
	if f2.Token <= f.Token {
		return c.Failf("AcquireFence", fmt.Sprintf("%q) after DeleteExecution (", x), f2.Token, fmt.Sprintf("> %d", f.Token))
	}
	return expectLog(ctx, c, x, nil, "a zombie append after DeleteExecution")
}

// listAll pages through the ids that start with prefix: it starts at the cursor prefix (any string is
// a cursor, I-STORE-13, and every id with the prefix sorts after it) and stops at the first id past
// them, so what else a shared target holds does not matter.
func listAll(ctx context.Context, c *EventStoreCase, prefix string, limit int, between func(page int) error) ([]string, error) {
	l := c.Store.(spi.ExecutionLister)
	var out []string
	cursor := prefix
	for page := 0; ; page++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		args := fmt.Sprintf("%q, %d", cursor, limit)
		p, err := l.ListExecutionsPage(ctx, cursor, limit)
		if err != nil {
			return nil, c.Failf("ListExecutionsPage", args, err, "nil")
		}
		if len(p.ExecutionIDs) > limit {
			return nil, c.Failf("ListExecutionsPage", args, fmt.Sprintf("%d ids", len(p.ExecutionIDs)), fmt.Sprintf("at most %d", limit))
		}
		for _, id := range p.ExecutionIDs {
			if id <= cursor {
				return nil, c.Failf("ListExecutionsPage", args, fmt.Sprintf("%q (page %d)", id, page), "ids strictly after the cursor")
			}
			if n := len(out); n > 0 && out[n-1] >= id {
				return nil, c.Failf("ListExecutionsPage", args,
					fmt.Sprintf("%q after %q (page %d)", id, out[n-1], page), "ascending ids, none repeated")
			}
			if !strings.HasPrefix(id, prefix) {
				return out, nil // past the ids of this check
			}
			out = append(out, id)
		}
		if p.Next == "" {
			return out, nil
		}
		if p.Next <= cursor {
			return nil, c.Failf("ListExecutionsPage", args, fmt.Sprintf("next cursor %q (no progress)", p.Next), "a later cursor")
		}
		cursor = p.Next
		if between != nil {
			if err := between(page); err != nil {
				return nil, err
			}
		}
	}
}

func checkListing(c *EventStoreCase, listed []string, mustOnce []string, args string) error {
	count := map[string]int{}
	for i, id := range listed {
		count[id]++
		if count[id] > 1 {
			return c.Failf("ListExecutionsPage", args, fmt.Sprintf("%q listed twice", id), "every id once")
		}
		if i > 0 && listed[i-1] >= id {
			return c.Failf("ListExecutionsPage", args, fmt.Sprintf("%q after %q", id, listed[i-1]), "ascending ids")
		}
	}
	for _, id := range mustOnce {
		if count[id] != 1 {
			return c.Failf("ListExecutionsPage", args, fmt.Sprintf("%q listed %d times", id, count[id]), "exactly once")
		}
	}
	return nil
}

func esListPages(ctx context.Context, c *EventStoreCase) error {
	prefix := c.ExecID("list")
	var ids []string
	for i := 0; i < 23; i++ {
		x := fmt.Sprintf("%s-%02d", prefix, i)
		ids = append(ids, x)
		if err := appendOK(ctx, c, x, batch(x, 0, 1, "l"), spi.AppendOptions{}); err != nil {
			return err
		}
	}
	for _, limit := range []int{1, 5, 23, 1000} {
		got, err := listAll(ctx, c, prefix, limit, nil)
		if err != nil {
			return err
		}
		if e := checkListing(c, got, ids, fmt.Sprintf("pages of %d", limit)); e != nil {
			return e
		}
	}
	// Only executions with a stored envelope are listed (I-STORE-13): not one deleted by
	// deleteExecution, nor one whose every envelope deleteThrough removed.
	var gone []string
	if spi.Has(manifest.SeamEventStore, c.Store, spi.MethodDeleteExecution) {
		x := ids[3]
		if err := c.Store.(spi.ExecutionDeleter).DeleteExecution(ctx, x); err != nil {
			return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
		}
		gone = append(gone, x)
	}
	if spi.Has(manifest.SeamEventStore, c.Store, spi.MethodDeleteThrough) {
		x := ids[7]
		if err := c.Store.(spi.ThroughDeleter).DeleteThrough(ctx, x, 5); err != nil {
			return c.Failf("DeleteThrough", fmt.Sprintf("%q, 5", x), err, "nil")
		}
		gone = append(gone, x)
	}
	if len(gone) > 0 {
		got, err := listAll(ctx, c, prefix, 5, nil)
		if err != nil {
			return err
		}
		var left []string
		for _, id := range ids {
			if !slices.Contains(gone, id) {
				left = append(left, id)
			}
		}
		if d := c.Diff("ListExecutionsPage", fmt.Sprintf("pages of 5) after deleting %q (", gone), left, got); d != nil {
			return d
		}
	}
	_, err := c.Store.(spi.ExecutionLister).ListExecutionsPage(ctx, "", 0)
	return expectErr(c, "ListExecutionsPage", `"", 0`, err, spi.ErrInvalidArgument)
}

func esListConcurrent(ctx context.Context, c *EventStoreCase) error {
	prefix := c.ExecID("lc")
	var ids []string
	for i := 0; i < 30; i += 2 {
		x := fmt.Sprintf("%s-%03d", prefix, i*10)
		ids = append(ids, x)
		if err := appendOK(ctx, c, x, batch(x, 0, 1, "pre"), spi.AppendOptions{}); err != nil {
			return err
		}
	}
	inserted := 0
	between := func(page int) error {
		if page >= 8 {
			return nil
		}
		// Insert ids before, between and after the ones already listed.
		for j, k := range []int{page*20 + 5, page*20 + 15, 1, 299 - page} {
			x := fmt.Sprintf("%s-%03d-new%d-%d", prefix, k, page, j)
			inserted++
			if err := appendOK(ctx, c, x, batch(x, 0, 1, "new"), spi.AppendOptions{}); err != nil {
				return err
			}
		}
		return nil
	}
	got, err := listAll(ctx, c, prefix, 3, between)
	if err != nil {
		return err
	}
	return checkListing(c, got, ids, fmt.Sprintf("pages of 3 with %d concurrent inserts", inserted))
}
