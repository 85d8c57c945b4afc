package safehttp

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// charged runs h.Charge(n) in the background and returns its outcome's channel.
func charged(h *Hold, ctx context.Context, n int64) <-chan error {
	done := make(chan error, 1)
	go func() { done <- h.Charge(ctx, n) }()
	return done
}

// pending reports whether nothing arrived on done yet, leaving the charge running.
func pending(done <-chan error) bool {
	select {
	case <-done:
		return false
	case <-time.After(20 * time.Millisecond):
		return true
	}
}

// Reference: I-NET-4 — a budget counts the bytes its holders took, not what they may take: a
// charge that does not fit waits until another gives bytes back, and leaves when its client does;
// one holder alone always goes on.
func TestBudget(t *testing.T) {
	b := NewBudget(100, time.Hour)
	a, c := b.Hold(func() {}), b.Hold(func() {})
	if err := a.Charge(context.Background(), 150); err != nil {
		t.Fatalf("one holder alone, 150 bytes of a 100-byte budget: %v, want it taken", err)
	}
	a.Give(90)
	if b.Used() != 60 {
		t.Fatalf("after 150 taken and 90 given back: %d held, want 60", b.Used())
	}
	done := charged(c, context.Background(), 50) // 110 > 100: waits (a works: it is not on its client)
	if !pending(done) {
		t.Fatal("a charge past the budget did not wait")
	}
	a.Release()
	if err := <-done; err != nil {
		t.Fatalf("the waiting charge after the other holder left: %v", err)
	}
	d := b.Hold(func() {})
	ctx, cancel := context.WithCancel(context.Background())
	done = charged(d, ctx, 80)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a waiting charge whose client left = %v, want context.Canceled", err)
	}
	if b.Used() != 50 {
		t.Fatalf("%d bytes held, want 50 (the charge that left took none)", b.Used())
	}
}

// Reference: I-NET-20 — a holder that waits on its client without moving gives way to a charge
// that does not fit: it is cut off (its interrupt runs, its own next charge fails) and its bytes
// go to the waiting one; a holder working for its client is never cut.
func TestBudgetCutsStalledHolders(t *testing.T) {
	b := NewBudget(100, 10*time.Millisecond)
	var cuts atomic.Int32
	var stalled *Hold
	stalled = b.Hold(func() { cuts.Add(1) })
	working := b.Hold(func() { t.Error("a holder working for its client was cut") })
	if err := stalled.Charge(context.Background(), 60); err != nil {
		t.Fatal(err)
	}
	if err := working.Charge(context.Background(), 30); err != nil {
		t.Fatal(err)
	}
	stalled.WaitClient() // a body that stopped arriving
	waiter := b.Hold(func() {})
	done := charged(waiter, context.Background(), 50)
	for cuts.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if !stalled.WasCut() {
		t.Fatal("the interrupt ran but the holder is not marked cut")
	}
	stalled.Moved(0)
	if err := stalled.Charge(context.Background(), 1); !errors.Is(err, ErrCut) {
		t.Fatalf("a charge of the holder cut off = %v, want ErrCut", err)
	}
	stalled.Release() // its handler returns
	if err := <-done; err != nil {
		t.Fatalf("the charge the stalled holder gave way to: %v", err)
	}
	if b.Used() != 80 {
		t.Fatalf("%d bytes held, want 80 (the working holder's 30 and the waiter's 50)", b.Used())
	}
}

// Reference: I-NET-20 — when every other holder waits for the budget too, none can ever give
// bytes back: the charge that finds this is refused (ErrBusy) at once, and the others go on.
func TestBudgetRefusesWhenEveryHolderWaits(t *testing.T) {
	b := NewBudget(100, time.Hour)
	x, y := b.Hold(func() {}), b.Hold(func() {})
	if err := x.Charge(context.Background(), 60); err != nil {
		t.Fatal(err)
	}
	if err := y.Charge(context.Background(), 30); err != nil {
		t.Fatal(err)
	}
	done := charged(x, context.Background(), 30) // 120: waits for y, which is moving
	if !pending(done) {
		t.Fatal("x's second charge did not wait")
	}
	if err := y.Charge(context.Background(), 30); !errors.Is(err, ErrBusy) {
		t.Fatalf("y's charge while x waits on the budget = %v, want ErrBusy", err)
	}
	y.Release()
	if err := <-done; err != nil {
		t.Fatalf("x's charge once y was refused: %v", err)
	}
}
