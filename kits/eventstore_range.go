package kits

import (
	"context"
	"errors"
	"fmt"

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
