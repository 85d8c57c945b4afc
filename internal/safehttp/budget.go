package safehttp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Budget bounds the bytes a server holds at once for its clients: request bodies as they arrive,
// or answers built whole before they are written. A holder takes bytes as it needs them (Charge);
// when they do not fit it waits, and the holders that stalled on their clients give way: a holder
// that waits on its client (for a body's next bytes, or for the client to take an answer) and has
// not moved MinProgress bytes within the budget's window is cut off, the one stalled longest
// first. A client that sends or reads nothing therefore holds nothing anyone waits for, while one
// that moves keeps what it holds. When every other holder is itself waiting for the budget, none
// can ever give any back: the holder that found this is refused (ErrBusy) rather than wait.
type Budget struct {
	total  int64
	window time.Duration

	mu    sync.Mutex
	used  int64
	holds map[*Hold]struct{}
	freed chan struct{} // closed (and replaced) whenever bytes are given back
}

// MinProgress is what a holder must move within a budget's window not to count as stalled.
const MinProgress = 16 << 10

// DefaultWindow is the window of a budget made with a zero one: a holder that moved less than
// MinProgress bytes in it while waiting on its client gives way to others.
const DefaultWindow = time.Second

// ErrBusy is the error of a charge that could never be met: every other holder of the budget waits
// for it too.
var ErrBusy = errors.New("the server's budget is held by requests that all wait for it")

// ErrCut is the error a holder gets once it was cut off to make room for others.
var ErrCut = errors.New("cut off to make room: this client stalled while others waited for what it held")

// NewBudget returns a budget of total bytes; window (DefaultWindow when 0) is how long a holder
// may wait on its client without moving MinProgress bytes before it gives way to others.
func NewBudget(total int64, window time.Duration) *Budget {
	if window <= 0 {
		window = DefaultWindow
	}
	return &Budget{total: total, window: window, holds: map[*Hold]struct{}{}, freed: make(chan struct{})}
}

// Total returns the bytes the budget holds at most.
func (b *Budget) Total() int64 { return b.total }

// Used returns the bytes held now.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Hold is one holder of a budget: a request body being read, or an answer being written. Its
// methods are for one goroutine (the handler's) except Cut, which the budget calls.
type Hold struct {
	b         *Budget
	interrupt func() // cuts the holder's client off (closes its connection); quick, called under b.mu

	// guarded by b.mu
	n        int64     // bytes held
	onClient bool      // waiting on its client now (a read of the body, a write of the answer)
	charging bool      // waiting for the budget
	mark     time.Time // when it last moved MinProgress bytes (or began, or got its bytes)
	moved    int64     // bytes moved since mark
	cut      bool
	released bool
}

// Hold registers a holder; interrupt cuts its client off when it must give way (Interrupter
// makes one for a request). Release it when done.
func (b *Budget) Hold(interrupt func()) *Hold {
	h := &Hold{b: b, interrupt: interrupt, mark: time.Now()}
	b.mu.Lock()
	b.holds[h] = struct{}{}
	b.mu.Unlock()
	return h
}

// WaitClient records that the holder starts waiting on its client (a read of the body, a write of
// the answer); Moved ends the wait.
func (h *Hold) WaitClient() {
	h.b.mu.Lock()
	h.onClient = true
	h.b.mu.Unlock()
}

// Moved records that the holder's wait on its client ended with n bytes sent or taken.
func (h *Hold) Moved(n int) {
	h.b.mu.Lock()
	h.onClient = false
	h.moved += int64(max(n, 0))
	if h.moved >= MinProgress {
		h.mark, h.moved = time.Now(), 0
	}
	h.b.mu.Unlock()
}

// WasCut reports whether the budget cut this holder off.
func (h *Hold) WasCut() bool {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	return h.cut
}

// TryCharge takes n more bytes if they fit now, without waiting.
func (h *Hold) TryCharge(n int64) bool {
	b := h.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if h.cut || !b.fits(h, n) {
		return false
	}
	b.take(h, n)
	return true
}

// Add takes n more bytes whether or not they fit (what a holder must hold whatever the budget
// says, such as an answer rebuilt a little larger than the room it reserved).
func (h *Hold) Add(n int64) {
	if n < 0 {
		h.Give(-n)
		return
	}
	h.b.mu.Lock()
	h.b.take(h, n)
	h.b.mu.Unlock()
}

// Charge takes n more bytes, waiting while they do not fit and cutting off the holders stalled on
// their clients to make room. It fails when ctx ends (the client left), when this holder was cut
// off, or with ErrBusy when every other holder waits for the budget as well.
func (h *Hold) Charge(ctx context.Context, n int64) error {
	b := h.b
	b.mu.Lock()
	h.charging = true
	defer func() { h.charging = false; b.mu.Unlock() }()
	waited := false
	for ; h.cut || !b.fits(h, n); waited = true {
		if h.cut {
			return ErrCut
		}
		b.cutStalled(h, b.used+n-b.total, time.Now())
		if b.deadlocked(h) {
			return fmt.Errorf("%w: %d of its %d bytes are held", ErrBusy, b.used, b.total)
		}
		freed := b.freed
		b.mu.Unlock()
		t := time.NewTimer(b.window / 4)
		select {
		case <-freed:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		b.mu.Lock()
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("waiting for %d bytes of the server's %d-byte budget: %w", n, b.total, err)
		}
	}
	if waited { // the time spent waiting for the budget was not the client's: its window starts again
		h.mark, h.moved = time.Now(), 0
	}
	b.take(h, n)
	return nil
}

// Give returns n of the holder's bytes (a stream's line, once answered).
func (h *Hold) Give(n int64) {
	b := h.b
	b.mu.Lock()
	defer b.mu.Unlock()
	n = min(n, h.n)
	if n <= 0 {
		return
	}
	h.n -= n
	b.used -= n
	b.signal()
}

// Release returns every byte the holder holds and unregisters it. It may be called more than once.
func (h *Hold) Release() {
	b := h.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if h.released {
		return
	}
	h.released = true
	delete(b.holds, h)
	b.used -= h.n
	h.n = 0
	b.signal()
}

// fits reports whether h may take n more bytes: they fit the total, or nobody else holds any (one
// holder alone may always go on).
func (b *Budget) fits(h *Hold, n int64) bool {
	return b.used+n <= b.total || b.used == h.n
}

func (b *Budget) take(h *Hold, n int64) {
	h.n += n
	b.used += n
}

func (b *Budget) signal() {
	close(b.freed)
	b.freed = make(chan struct{})
}

// cutStalled cuts off holders stalled on their clients, the one stalled longest first, until the
// bytes of the holders cut and not yet gone cover short. Holders cut before are interrupted again
// (a connection's deadline may have been moved since). It runs under b.mu, so a holder released
// (its handler returned) is never interrupted.
func (b *Budget) cutStalled(self *Hold, short int64, now time.Time) {
	var pending int64
	var stalled []*Hold
	for h := range b.holds {
		switch {
		case h == self || h.n == 0:
		case h.cut:
			pending += h.n
			h.interrupt()
		case h.onClient && !h.charging && now.Sub(h.mark) >= b.window:
			stalled = append(stalled, h)
		}
	}
	slices.SortFunc(stalled, func(x, y *Hold) int { return x.mark.Compare(y.mark) })
	for _, h := range stalled {
		if pending >= short {
			return
		}
		h.cut = true
		pending += h.n
		h.interrupt()
	}
}

// deadlocked reports whether no holder but self can ever give bytes back: each other holder that
// holds any waits for the budget itself (none is moving, working or cut).
func (b *Budget) deadlocked(self *Hold) bool {
	for h := range b.holds {
		if h != self && h.n > 0 && (!h.charging || h.cut) {
			return false
		}
	}
	return true
}
