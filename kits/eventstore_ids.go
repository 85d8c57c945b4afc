package kits

import (
	"context"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

func esIsolation(ctx context.Context, c *EventStoreCase) error {
	a, b := c.ExecID("iso-a"), c.ExecID("iso-b")
	var wa, wb []spi.Envelope
	for i := int64(0); i < 6; i++ {
		ea, eb := env(a, i, "a"), env(b, i, "b")
		if err := appendOK(ctx, c, a, []spi.Envelope{ea}, spi.AppendOptions{}); err != nil {
			return err
		}
		if err := appendOK(ctx, c, b, []spi.Envelope{eb}, spi.AppendOptions{}); err != nil {
			return err
		}
		wa, wb = append(wa, ea), append(wb, eb)
	}
	// A prefix id of a must not see a's events.
	if err := expectLog(ctx, c, a[:len(a)-1], nil, "writes to "+a); err != nil {
		return err
	}
	if err := expectLog(ctx, c, a, wa, "interleaved appends"); err != nil {
		return err
	}
	return expectLog(ctx, c, b, wb, "interleaved appends")
}

func esExecutionIDs(ctx context.Context, c *EventStoreCase) error {
	base := c.ExecID("ids")
	long := base + "-" + strings.Repeat("x", 1000)
	ids := []string{
		"__loom_quarantine__:" + base,
		"__loom_quarantine__:" + base + ":2",
		base + `-quote'"-percent%_-backslash\\-slash/`,
		base + "-ünï-日本-🧵",
		base + "-space and\ttab",
		long + "a",
		long + "b",
		// Ids that differ only by case, trailing space or Unicode normal form are different ids:
		// ids are compared as bytes (I-STORE-4), never folded, trimmed or normalised.
		base + "-Case",
		base + "-case",
		base + "-pad",
		base + "-pad ",
		base + "-caf\u00e9",
		base + "-cafe\u0301",
	}
	for i, x := range ids {
		if err := appendOK(ctx, c, x, batch(x, 0, i+1, fmt.Sprintf("id%d", i)), spi.AppendOptions{}); err != nil {
			return err
		}
	}
	for i, x := range ids {
		if err := expectLog(ctx, c, x, batch(x, 0, i+1, fmt.Sprintf("id%d", i)), fmt.Sprintf("appends to %d awkward ids", len(ids))); err != nil {
			return err
		}
	}
	return nil
}

func esIDsEveryMethod(ctx context.Context, c *EventStoreCase) error {
	for _, p := range idPairs(c.ExecID("ids")) {
		if err := esIDPair(ctx, c, p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}

// esIDPair walks every declared optional method over a and b, each step checking that b (or a)
// did not move.
func esIDPair(ctx context.Context, c *EventStoreCase, a, b string) error {
	la, lb := batch(a, 0, 3, "a"), batch(b, 0, 5, "b")
	if err := appendOK(ctx, c, b, lb, spi.AppendOptions{}); err != nil {
		return err
	}
	if esHas(c, spi.MethodCopyPrefix) {
		// a is empty as bytes, whatever b is: copyPrefix into it must succeed and leave b alone.
		if err := c.Store.(spi.PrefixCopier).CopyPrefix(ctx, b, a, 1); err != nil {
			return c.Failf("CopyPrefix", fmt.Sprintf("%q, %q, 1) next to (a non-empty %q", b, a, b), err, "nil (the target is empty)")
		}
		la = []spi.Envelope{lb[0], lb[1], env(a, 2, "a")}
		la[0].ExecutionID, la[1].ExecutionID = a, a
		if err := expectLog(ctx, c, a, la[:2], fmt.Sprintf("CopyPrefix from %q", b)); err != nil {
			return err
		}
		if err := expectLog(ctx, c, b, lb, fmt.Sprintf("CopyPrefix into %q", a)); err != nil {
			return err
		}
		la = la[:2]
		if err := appendOK(ctx, c, a, []spi.Envelope{env(a, 2, "a")}, spi.AppendOptions{}); err != nil {
			return err
		}
		la = append(la, env(a, 2, "a"))
	} else if err := appendOK(ctx, c, a, la, spi.AppendOptions{}); err != nil {
		return err
	}
	ctxt := func(what string) string { return fmt.Sprintf("%s on %q", what, a) }
	var tokenA, tokenB int64 // the current fence token of each id (0: never fenced)
	if esHas(c, spi.MethodReadRange) {
		rr := c.Store.(spi.RangeReader)
		for _, x := range []struct {
			id   string
			want []spi.Envelope
		}{{a, la}, {b, lb}} {
			got, err := rr.ReadRange(ctx, x.id, 0, -1)
			if err != nil {
				return c.Failf("ReadRange", fmt.Sprintf("%q, 0, -1", x.id), err, "nil")
			}
			if d := c.Diff("ReadRange", fmt.Sprintf("%q, 0, -1) next to (%q", x.id, other(x.id, a, b)), x.want, nonNil(got), envCmp); d != nil {
				return d
			}
		}
	}
	if esHas(c, spi.MethodAcquireFence) {
		f := c.Store.(spi.Fencer)
		fb, err := f.AcquireFence(ctx, b)
		if err != nil {
			return c.Failf("AcquireFence", fmt.Sprintf("%q", b), err, "nil")
		}
		fa, err := f.AcquireFence(ctx, a)
		if err != nil {
			return c.Failf("AcquireFence", fmt.Sprintf("%q", a), err, "nil")
		}
		tokenA, tokenB = fa.Token, fb.Token
		next := env(b, int64(len(lb)), "b-fenced")
		if err := c.Store.Append(ctx, b, []spi.Envelope{next}, spi.AppendOptions{Fence: fb.Token}); err != nil {
			return c.Failf("Append", appendArgs(b, []spi.Envelope{next}, spi.AppendOptions{Fence: fb.Token})+") after ("+ctxt("AcquireFence"), err, "nil (a fence of another id does not fence this one)")
		}
		lb = append(lb, next)
	}
	if esHas(c, spi.MethodAcquireFenceIf) {
		// Each id's current token is its own: a conditional fence on a, then on b, each
		// expecting the token that id last got, both succeed.
		fi := c.Store.(spi.ConditionalFencer)
		for _, x := range []struct {
			id       string
			expected int64
		}{{a, tokenA}, {b, tokenB}} {
			if _, err := fi.AcquireFenceIf(ctx, x.id, x.expected); err != nil {
				return c.Failf("AcquireFenceIf", fmt.Sprintf("%q, %d) next to (%q", x.id, x.expected, other(x.id, a, b)), err, "a new token (that id's current token is the expected one)")
			}
		}
	}
	if esHas(c, spi.MethodAppendIfUnchanged) {
		ca := c.Store.(spi.ConditionalAppender)
		anchor, err := ca.Observe(ctx, a)
		if err != nil {
			return c.Failf("Observe", fmt.Sprintf("%q", a), err, "nil")
		}
		next := env(b, int64(len(lb)), "b-after-observe")
		if err := appendOK(ctx, c, b, []spi.Envelope{next}, spi.AppendOptions{}); err != nil {
			return err
		}
		lb = append(lb, next)
		na := env(a, int64(len(la)), "a-if-unchanged")
		if err := ca.AppendIfUnchanged(ctx, a, anchor, []spi.Envelope{na}, spi.AppendOptions{}); err != nil {
			return c.Failf("AppendIfUnchanged", fmt.Sprintf("%q, its fresh anchor, [seq %d]) after (an append to %q", a, na.Sequence, b), err, "nil (writes to another id never make an anchor stale)")
		}
		la = append(la, na)
	}
	if err := expectLog(ctx, c, b, lb, ctxt("writes")); err != nil {
		return err
	}
	if esHas(c, spi.MethodDeleteThrough) {
		if err := c.Store.(spi.ThroughDeleter).DeleteThrough(ctx, a, 1); err != nil {
			return c.Failf("DeleteThrough", fmt.Sprintf("%q, 1", a), err, "nil")
		}
		if err := expectLog(ctx, c, b, lb, ctxt("DeleteThrough 1")); err != nil {
			return err
		}
		if err := expectLog(ctx, c, a, la[2:], "DeleteThrough 1"); err != nil {
			return err
		}
	}
	if esHas(c, spi.MethodDeleteExecution) {
		if err := c.Store.(spi.ExecutionDeleter).DeleteExecution(ctx, a); err != nil {
			return c.Failf("DeleteExecution", fmt.Sprintf("%q", a), err, "nil")
		}
		if err := expectLog(ctx, c, b, lb, ctxt("DeleteExecution")); err != nil {
			return err
		}
		if err := expectLog(ctx, c, a, nil, "DeleteExecution"); err != nil {
			return err
		}
		la = nil
	}
	return nil
}
