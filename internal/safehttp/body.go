package safehttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// SmallBody is the largest declared body read without the request budget: one that size at most
// is read whole at once (allocated as declared), and the connection cap bounds how many are read
// at once (MaxConns × SmallBody), so a small call never waits behind large ones.
const SmallBody = 64 << 10

// readChunk bounds one read of a charged body: the bytes read before they are charged stay small.
const readChunk = 64 << 10

// TooLarge reports whether r declares a body longer than limit: it is answered at once, naming the
// limit, and never read.
func TooLarge(r *http.Request, limit int64) bool { return r.ContentLength > limit }

// Body is a request body whose bytes are charged to a budget as they arrive (Budget.Body). Release
// it once the bytes it read are no longer held.
type Body struct {
	r   io.Reader
	h   *Hold
	ctx context.Context
}

// Body returns the body r (already limited by the caller) charged to b as it arrives, or r itself
// when r declares at most SmallBody bytes (Charged then reports false).
func (b *Budget) Body(w http.ResponseWriter, r *http.Request, body io.Reader) *Body {
	if r.ContentLength >= 0 && r.ContentLength <= SmallBody {
		return &Body{r: body, ctx: r.Context()}
	}
	return &Body{r: body, h: b.Hold(Interrupter(w, r)), ctx: r.Context()}
}

// Charged reports whether the body's bytes are charged to the budget.
func (b *Body) Charged() bool { return b.h != nil }

// Hold returns the body's holder (nil when it is not charged): a stream gives its lines back.
func (b *Body) Hold() *Hold { return b.h }

func (b *Body) Read(p []byte) (int, error) {
	if b.h == nil {
		return b.r.Read(p)
	}
	if len(p) > readChunk {
		p = p[:readChunk]
	}
	b.h.WaitClient()
	n, err := b.r.Read(p)
	b.h.Moved(n)
	if b.h.WasCut() {
		return 0, fmt.Errorf("the request body: %w", ErrCut)
	}
	if n > 0 {
		if cerr := b.h.Charge(b.ctx, int64(n)); cerr != nil {
			return 0, cerr
		}
	}
	return n, err
}

// Release gives back every byte the body holds of the budget.
func (b *Body) Release() {
	if b.h != nil {
		b.h.Release()
	}
}

// ReadBody reads a whole body: in one buffer of its declared length when that is at most
// SmallBody (so a small body costs one allocation), else as it comes — never allocating for bytes
// that did not arrive. A body longer than it declared (a handler that rewrote it) is read whole.
func ReadBody(body io.Reader, declared int64) ([]byte, error) {
	if declared <= 0 || declared > SmallBody {
		return io.ReadAll(body)
	}
	b := make([]byte, declared)
	if _, err := io.ReadFull(body, b); err != nil {
		return nil, err
	}
	var one [1]byte
	if n, _ := body.Read(one[:]); n > 0 {
		rest, err := io.ReadAll(body)
		if err != nil {
			return nil, err
		}
		b = append(append(b, one[0]), rest...)
	}
	return b, nil
}

// Interrupter returns the function that cuts r's client off: it closes the connection when the
// request came through Serve, and otherwise ends the connection's reads and writes now.
func Interrupter(w http.ResponseWriter, r *http.Request) func() {
	if c, ok := r.Context().Value(connKey{}).(*conn); ok {
		return func() { _ = c.Close() }
	}
	rc := http.NewResponseController(w)
	return func() {
		now := time.Now()
		_ = rc.SetReadDeadline(now)
		_ = rc.SetWriteDeadline(now)
	}
}

// Busy answers a request the server cannot take now (ErrBusy, ErrCut) with a 503 that says why; a
// client treats it as a broken link and may retry.
func Busy(w http.ResponseWriter, err error) {
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Connection", "close")
	http.Error(w, err.Error(), http.StatusServiceUnavailable)
}

// Overloaded reports whether err is the budget's refusal (ErrBusy) or cut (ErrCut), answered with
// Busy.
func Overloaded(err error) bool { return errors.Is(err, ErrBusy) || errors.Is(err, ErrCut) }
