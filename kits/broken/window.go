package broken

import (
	"context"
	"runtime"
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
// A natural window (naturalWindow) holds nothing: hold yields the processor once, as a real store's
// goroutine does while it waits on the round trip of its next statement, and returns. That is the
// window of the correct logic with its lock released between two statements, and whether a reader
// lands in it depends on the scheduler: the kits' checks are sized to see it on 99 % of seeds
// (make seed-rate, docs/performance.md).
type window struct {
	started *atomic.Int64 // reads begun
	seen    *atomic.Int64 // the highest read (by start order) that has finished
	natural bool          // hold yields once instead of waiting for a reader
}

// holdLimit bounds a hold when no reader comes.
const holdLimit = 2 * time.Second

func newWindow() window { return window{&atomic.Int64{}, &atomic.Int64{}, false} }

// naturalWindow is a window that is not held open (see window).
func naturalWindow() window { return window{&atomic.Int64{}, &atomic.Int64{}, true} }

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
	if w.natural {
		runtime.Gosched()
		return
	}
	after := w.started.Load()
	deadline := time.Now().Add(holdLimit)
	for w.seen.Load() <= after && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(20 * time.Microsecond)
	}
}
