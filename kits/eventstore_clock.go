package kits

import (
	"context"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

func esStoreNowUnit(ctx context.Context, c *EventStoreCase) error {
	clock := c.Store.(spi.Clock)
	for i := 0; i < 3; i++ {
		now, err := clock.StoreNow(ctx)
		if err != nil {
			return c.Failf("StoreNow", "", err, "nil")
		}
		if now < 1e12 || now >= 1e13 {
			unit := "neither"
			switch {
			case now >= 1e9 && now < 1e10:
				unit = "seconds"
			case now >= 1e15 && now < 1e16:
				unit = "microseconds"
			case now >= 1e18:
				unit = "nanoseconds"
			}
			return c.Failf("StoreNow", "", fmt.Sprintf("%d (%s)", now, unit), "epoch milliseconds, 10^12 <= now < 10^13")
		}
	}
	return nil
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
