package broken

import (
	"context"
	"sync/atomic"
	"time"
)

// window is how a broken store whose write is visible half-done holds that state open: after each
// part of the write it waits until a read that started after the part landed has finished (or
// holdLimit passed, when nobody reads). That is exactly the shortest window the kits' reader checks
// promise to see (one read), and it does not depend on how the goroutines are scheduled, so a check
// that reads the written item while the write runs rejects the store on every seed and any
// machine, and a check that does not never does.
//
// A natural window (windowAt(paceNatural)) holds nothing: hold yields the processor once and
// returns, the window of the correct logic with its lock released between two statements; a
// round-trip window (windowAt(paceRoundTrip)) makes one loopback round trip, as a real store's
// goroutine waits on the round trip of its next statement. Whether a reader lands in either
// depends on the scheduler: the kits' checks are sized to see them on 99 % of seeds (make
// seed-rate, docs/performance.md).
type window struct {
	started *atomic.Int64 // reads begun
	seen    *atomic.Int64 // the highest read (by start order) that has finished
	pace    pace          // paceHeld waits for a reader; the others open their own window (gap)
}

// holdLimit bounds a hold when no reader comes.
const holdLimit = 2 * time.Second

func newWindow() window { return windowAt(paceHeld) }

// windowAt is a window opened at pace p (see window).
func windowAt(p pace) window { return window{&atomic.Int64{}, &atomic.Int64{}, p} }

// read runs one read of the store and records it.
func (w window) read(f func()) {
	t := w.started.Add(1)
	defer func() {
		for {
			s := w.seen.Load()
			if t <= s || w.seen.CompareAndSwap(s, t) {
				return
			}
		}
	}()
	f()
}

// hold returns once a read that began after the call has finished, or after holdLimit, or when
// ctx ends (the caller gave up on the write).
func (w window) hold(ctx context.Context) {
	if w.pace != paceHeld {
		gap(w.pace, nil)
		return
	}
	after := w.started.Load()
	deadline := time.Now().Add(holdLimit)
	for w.seen.Load() <= after && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(20 * time.Microsecond)
	}
}
