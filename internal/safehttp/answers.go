package safehttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// SmallAnswer is the largest answer written without the answer budget: the connection cap bounds
// how many are held at once (MaxConns × SmallAnswer).
const SmallAnswer = 64 << 10

// Answer is an answer built whole before it is written: about how many bytes it holds, and how to
// write it.
type Answer interface {
	Size() int64
	Write(w io.Writer) error
}

// Answers bounds the answers a server holds whole while their clients read them. Building one is
// what costs memory before its size is known, so at most Slots are built at once; a built answer
// then takes its size from a byte budget and gives its slot back, so a client slow to read holds
// only budget bytes, which it gives up (its connection is closed) once it stalls while another
// answer waits for them. An answer that does not fit the budget is dropped, waits for its size
// without a slot, and is built again: a small answer never waits behind large ones for longer than
// a build. The size of a request's last answer is remembered (for the last 256 requests), so the
// same request asked again reserves its room before it is built, and many clients reading one
// large answer build it only as fast as the budget lets them hold it.
type Answers struct {
	slots  chan struct{}
	budget *Budget

	mu    sync.Mutex
	sizes map[string]int64 // a request's last answer's size, by key
	keys  []string         // the keys in sizes, the oldest first
}

// Sizes remembered, and the longest key remembered.
const (
	maxSizes   = 256
	maxSizeKey = 1 << 10
)

// NewAnswers returns a gate of slots builds at once and total bytes of built answers held at once
// (window as in NewBudget).
func NewAnswers(slots int, total int64, window time.Duration) *Answers {
	return &Answers{slots: make(chan struct{}, max(slots, 1)), budget: NewBudget(total, window), sizes: map[string]int64{}}
}

// Budget returns the answers' byte budget.
func (a *Answers) Budget() *Budget { return a.budget }

// Serve builds r's answer with build (under a slot), holds its size of the budget and writes it to
// w. key names the request (its method and params: the same key, the same answer but for the log's
// growth); "" remembers nothing. It returns an error, having written nothing, when r's client left
// while it waited; a write that fails (the client left or was cut off) ends it quietly.
func (a *Answers) Serve(w http.ResponseWriter, r *http.Request, key string, build func(context.Context) Answer) error {
	ctx := r.Context()
	h := a.budget.Hold(Interrupter(w, r))
	defer h.Release()
	// A size known before building (remembered, or from a build dropped for want of room) is
	// reserved first: waiting for the room holds neither an answer nor a slot.
	reserved := int64(0)
	var ans Answer
	for ans == nil {
		if size := a.size(key); reserved == 0 && size > SmallAnswer {
			if err := h.Charge(ctx, size); err != nil {
				return err
			}
			reserved = size
		}
		built, known, err := a.build(ctx, key, reserved, build)
		if err != nil {
			return err
		}
		switch {
		case built == nil: // a size became known while this one waited for its slot
			continue
		case known || built.Size() <= SmallAnswer || h.TryCharge(built.Size()):
			ans = built
		default: // dropped: it waits for its room without holding the answer, and is built again
			if err := h.Charge(ctx, built.Size()); err != nil {
				return err
			}
			reserved = built.Size()
		}
	}
	if reserved > 0 {
		h.Add(ans.Size() - reserved) // built after its room was reserved, it may have grown a little
	}
	if ans.Size() <= SmallAnswer && reserved == 0 {
		_ = ans.Write(w)
		return nil
	}
	_ = ans.Write(&holdWriter{w: w, h: h})
	return nil
}

// build builds key's answer under a slot: with its room already reserved (known), or, when a
// size for key became known while it waited for the slot, not at all (nil: reserve that first).
func (a *Answers) build(ctx context.Context, key string, reserved int64, build func(context.Context) Answer) (ans Answer, known bool, err error) {
	select {
	case a.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, false, fmt.Errorf("waiting to build an answer: %w", ctx.Err())
	}
	defer func() { <-a.slots }()
	if reserved == 0 && a.size(key) > SmallAnswer {
		return nil, false, nil
	}
	ans = build(ctx)
	a.remember(key, ans.Size())
	return ans, reserved > 0, nil
}

// size is the size of key's last answer (0: none remembered).
func (a *Answers) size(key string) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sizes[key]
}

// remember keeps key's answer's size, forgetting the oldest key past maxSizes.
func (a *Answers) remember(key string, size int64) {
	if key == "" || len(key) > maxSizeKey {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.sizes[key]; !ok {
		if len(a.keys) >= maxSizes {
			delete(a.sizes, a.keys[0])
			a.keys = append(a.keys[:0], a.keys[1:]...)
		}
		a.keys = append(a.keys, key)
	}
	a.sizes[key] = size
}

// holdWriter writes an answer, telling its hold when it waits on the client and what it took.
type holdWriter struct {
	w io.Writer
	h *Hold
}

func (x *holdWriter) Write(p []byte) (int, error) {
	x.h.WaitClient()
	n, err := x.w.Write(p)
	x.h.Moved(n)
	if err != nil && x.h.WasCut() {
		err = fmt.Errorf("the answer: %w", ErrCut)
	}
	return n, err
}
