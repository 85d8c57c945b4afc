package safehttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
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
// a build.
type Answers struct {
	slots  chan struct{}
	budget *Budget
}

// NewAnswers returns a gate of slots builds at once and total bytes of built answers held at once
// (window as in NewBudget).
func NewAnswers(slots int, total int64, window time.Duration) *Answers {
	return &Answers{slots: make(chan struct{}, max(slots, 1)), budget: NewBudget(total, window)}
}

// Budget returns the answers' byte budget.
func (a *Answers) Budget() *Budget { return a.budget }

// Serve builds r's answer with build (under a slot), holds its size of the budget and writes it to
// w. It returns an error, having written nothing, when r's client left while it waited; a write
// that fails (the client left or was cut off) ends it quietly.
func (a *Answers) Serve(w http.ResponseWriter, r *http.Request, build func(context.Context) Answer) error {
	ctx := r.Context()
	ans, err := a.build(ctx, build)
	if err != nil {
		return err
	}
	if ans.Size() <= SmallAnswer {
		_ = ans.Write(w)
		return nil
	}
	h := a.budget.Hold(Interrupter(w, r))
	defer h.Release()
	if !h.TryCharge(ans.Size()) {
		size := ans.Size()
		ans = nil // dropped: waiting for room must not hold the answer, nor a slot
		if err := h.Charge(ctx, size); err != nil {
			return err
		}
		if ans, err = a.build(ctx, build); err != nil {
			return err
		}
		h.Add(ans.Size() - size) // built again, it may have grown a little (an append since)
	}
	_ = ans.Write(&holdWriter{w: w, h: h})
	return nil
}

func (a *Answers) build(ctx context.Context, build func(context.Context) Answer) (Answer, error) {
	select {
	case a.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting to build an answer: %w", ctx.Err())
	}
	defer func() { <-a.slots }()
	return build(ctx), nil
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
