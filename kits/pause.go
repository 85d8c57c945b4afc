package kits

import (
	"context"
	"runtime"
	"time"
)

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// spin waits about d without sleeping (a timer this short overshoots by tens of microseconds),
// yielding the processor as it waits; it returns early when ctx ends.
func spin(ctx context.Context, d time.Duration) {
	for start := time.Now(); time.Since(start) < d && ctx.Err() == nil; {
		runtime.Gosched()
	}
}
