package kits

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

func observe(ctx context.Context, c *EventStoreCase, x string) (spi.Anchor, error) {
	a, err := c.Store.(spi.ConditionalAppender).Observe(ctx, x)
	if err != nil {
		return a, c.Failf("Observe", fmt.Sprintf("%q", x), err, "nil")
	}
	return a, nil
}

func esAppendIfUnchanged(ctx context.Context, c *EventStoreCase) error {
	ca := c.Store.(spi.ConditionalAppender)
	x := c.ExecID("if-unchanged")
	a0, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	first := batch(x, 0, 2, "first")
	if err := ca.AppendIfUnchanged(ctx, x, a0, first, spi.AppendOptions{}); err != nil {
		return c.Failf("AppendIfUnchanged", fmt.Sprintf("%q, fresh anchor of empty log, [seq 0..1]", x), err, "nil")
	}
	// a0 is now stale.
	b := batch(x, 2, 1, "stale")
	err = ca.AppendIfUnchanged(ctx, x, a0, b, spi.AppendOptions{})
	if e := expectErr(c, "AppendIfUnchanged", fmt.Sprintf("%q, anchor before 2 appends, [seq 2]", x), err, spi.ErrConflict); e != nil {
		return e
	}
	a1, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	if a1 == a0 {
		return c.Failf("Observe", fmt.Sprintf("%q) after an append (", x), fmt.Sprintf("the same anchor %q", a1), "a different anchor")
	}
	// Someone else appends: a1 goes stale.
	other := batch(x, 2, 1, "other")
	if err := appendOK(ctx, c, x, other, spi.AppendOptions{}); err != nil {
		return err
	}
	late := batch(x, 3, 1, "late")
	err = ca.AppendIfUnchanged(ctx, x, a1, late, spi.AppendOptions{})
	if e := expectErr(c, "AppendIfUnchanged", fmt.Sprintf("%q, anchor before a concurrent append, [seq 3]", x), err, spi.ErrConflict); e != nil {
		return e
	}
	if e := expectLog(ctx, c, x, append(first, other...), "refused conditional appends"); e != nil {
		return e
	}
	a2, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	if err := ca.AppendIfUnchanged(ctx, x, a2, late, spi.AppendOptions{}); err != nil {
		return c.Failf("AppendIfUnchanged", fmt.Sprintf("%q, fresh anchor, [seq 3]", x), err, "nil")
	}
	// An anchor names one execution's log: an append to another execution between Observe and
	// AppendIfUnchanged leaves it fresh (I-STORE-8).
	a3, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	y := c.ExecID("if-unchanged-other")
	if err := appendOK(ctx, c, y, batch(y, 0, 1, "elsewhere"), spi.AppendOptions{}); err != nil {
		return err
	}
	next := batch(x, 4, 1, "after-other")
	if err := ca.AppendIfUnchanged(ctx, x, a3, next, spi.AppendOptions{}); err != nil {
		return c.Failf("AppendIfUnchanged", fmt.Sprintf("%q, anchor taken before an append to another execution %q, [seq 4]", x, y), err, "nil")
	}
	return expectLog(ctx, c, x, append(append(append([]spi.Envelope{}, first...), other...), append(late, next...)...), "conditional appends")
}

// esAppendIfUnchangedFenced: a late outcome of a zombie worker carries its stale fence; the
// conditional append must refuse it like append does, even on a fresh anchor (spec §6, I-STORE-8).
func esAppendIfUnchangedFenced(ctx context.Context, c *EventStoreCase) error {
	ca := c.Store.(spi.ConditionalAppender)
	x := c.ExecID("if-unchanged-fenced")
	f1, err := acquire(ctx, c, x)
	if err != nil {
		return err
	}
	f2, err := acquire(ctx, c, x)
	if err != nil {
		return err
	}
	a, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	zombie := batch(x, 0, 1, "zombie-outcome")
	err = ca.AppendIfUnchanged(ctx, x, a, zombie, spi.AppendOptions{Fence: f1.Token})
	if e := expectErr(c, "AppendIfUnchanged", fmt.Sprintf("%q, fresh anchor, [seq 0], stale fence %d (current %d)", x, f1.Token, f2.Token), err, spi.ErrFenced); e != nil {
		return e
	}
	if e := expectLog(ctx, c, x, nil, "a conditional append with a stale fence"); e != nil {
		return e
	}
	live := batch(x, 0, 1, "live-outcome")
	if err := ca.AppendIfUnchanged(ctx, x, a, live, spi.AppendOptions{Fence: f2.Token}); err != nil {
		return c.Failf("AppendIfUnchanged", fmt.Sprintf("%q, fresh anchor, [seq 0], current fence %d", x, f2.Token), err, "nil")
	}
	return expectLog(ctx, c, x, live, "a conditional append with the current fence")
}

func esIncarnation(ctx context.Context, c *EventStoreCase) error {
	ca := c.Store.(spi.ConditionalAppender)
	del := c.Store.(spi.ExecutionDeleter)
	x := c.ExecID("incarnation")
	seq0 := batch(x, 0, 1, "same-bytes")
	if err := appendOK(ctx, c, x, seq0, spi.AppendOptions{}); err != nil {
		return err
	}
	before, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	if err := del.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
	}
	if err := appendOK(ctx, c, x, seq0, spi.AppendOptions{}); err != nil {
		return err
	}
	after, err := observe(ctx, c, x)
	if err != nil {
		return err
	}
	if after == before {
		return c.Failf("Observe", fmt.Sprintf("%q) after delete and a byte-identical recreate (", x), fmt.Sprintf("the old anchor %q", after), "a new anchor (new incarnation)")
	}
	b := batch(x, 1, 1, "zombie-late-outcome")
	err = ca.AppendIfUnchanged(ctx, x, before, b, spi.AppendOptions{})
	if e := expectErr(c, "AppendIfUnchanged", fmt.Sprintf("%q, anchor of the previous incarnation, [seq 1]", x), err, spi.ErrConflict); e != nil {
		return e
	}
	// The incarnation lives in store metadata only: the log is exactly what was written.
	return expectLog(ctx, c, x, seq0, "delete and recreate")
}
