package kits

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

// esRefusalOrder: a call wrong in several ways is refused by the first that applies of invalid
// argument, fenced and conflict; an empty batch is refused the same way and otherwise succeeds
// writing nothing; a negative sequence is invalid, never a conflict (I-STORE-50).
func esRefusalOrder(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("order")
	if err := appendOK(ctx, c, x, batch(x, 0, 1, "first"), spi.AppendOptions{}); err != nil {
		return err
	}
	neg := env(x, -1, "negative")
	refused := func(events []spi.Envelope, opts spi.AppendOptions, id, why string, want error) error {
		err := c.Store.Append(ctx, id, events, opts)
		return expectErr(c, "Append", appendArgs(id, events, opts)+") with ("+why, err, want)
	}
	for _, r := range []struct {
		id     string
		events []spi.Envelope
		why    string
	}{
		{x, []spi.Envelope{neg}, "a negative sequence"},
		{"", []spi.Envelope{}, "an empty batch for the empty id"},
	} {
		if err := refused(r.events, spi.AppendOptions{}, r.id, r.why, spi.ErrInvalidArgument); err != nil {
			return err
		}
	}
	if err := c.Store.Append(ctx, x, []spi.Envelope{}, spi.AppendOptions{}); err != nil {
		return c.Failf("Append", appendArgs(x, []spi.Envelope{}, spi.AppendOptions{})+") with (an empty batch", err, "nil, nothing written")
	}
	if esHas(c, spi.MethodAcquireFence) {
		stale, err := acquire(ctx, c, x)
		if err != nil {
			return err
		}
		cur, err := acquire(ctx, c, x)
		if err != nil {
			return err
		}
		for _, r := range []struct {
			events []spi.Envelope
			fence  int64
			why    string
			want   error
		}{
			{[]spi.Envelope{neg}, stale.Token, "a negative sequence and a stale fence: invalid first", spi.ErrInvalidArgument},
			{batch(x, 0, 1, "zombie"), stale.Token, "a taken sequence and a stale fence: fenced before conflict", spi.ErrFenced},
			{[]spi.Envelope{}, stale.Token, "an empty batch and a stale fence", spi.ErrFenced},
			{batch(x, 0, 1, "again"), cur.Token, "a taken sequence and the current fence", spi.ErrConflict},
		} {
			if err := refused(r.events, spi.AppendOptions{Fence: r.fence}, x, r.why, r.want); err != nil {
				return err
			}
		}
	}
	if esHas(c, spi.MethodAppendIfUnchanged) {
		ca := c.Store.(spi.ConditionalAppender)
		y := c.ExecID("order-anchor")
		anchor, err := ca.Observe(ctx, y)
		if err != nil {
			return c.Failf("Observe", fmt.Sprintf("%q", y), err, "nil")
		}
		if err := appendOK(ctx, c, y, batch(y, 0, 1, "moved"), spi.AppendOptions{}); err != nil {
			return err
		}
		err = ca.AppendIfUnchanged(ctx, y, anchor, []spi.Envelope{}, spi.AppendOptions{})
		if e := expectErr(c, "AppendIfUnchanged", fmt.Sprintf("%q, a stale anchor, []) with (an empty batch", y), err, spi.ErrConflict); e != nil {
			return e
		}
		err = ca.AppendIfUnchanged(ctx, y, anchor, []spi.Envelope{env(y, -1, "negative")}, spi.AppendOptions{})
		if e := expectErr(c, "AppendIfUnchanged", fmt.Sprintf("%q, a stale anchor, [seq -1]) with (invalid before conflict", y), err, spi.ErrInvalidArgument); e != nil {
			return e
		}
	}
	return expectLog(ctx, c, x, batch(x, 0, 1, "first"), "the refused appends")
}
