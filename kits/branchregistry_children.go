package kits

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

func brChildrenByteOrder(ctx context.Context, c *BranchRegistryCase) error {
	p := c.ExecID("parent")
	ids, asc := byteOrderIDs(p + "/")
	for i, id := range ids {
		if err := register(ctx, c, spi.Branch{ID: id, ParentID: p, ForkSequence: int64(i)}); err != nil {
			return err
		}
	}
	got, err := c.Store.ListChildren(ctx, p)
	if err != nil {
		return c.Failf("ListChildren", fmt.Sprintf("%q", p), err, "nil")
	}
	names := make([]string, len(got))
	for i, b := range got {
		names[i] = b.ID
	}
	return c.Diff("ListChildren", fmt.Sprintf("%q) ids only, children differing by case, trailing space and normal form (", p), asc, names)
}

func brChildren(ctx context.Context, c *BranchRegistryCase) error {
	p := c.ExecID("parent")
	var want []spi.Branch
	for _, n := range []string{"c", "a", "b"} {
		b := spi.Branch{ID: p + "/" + n, ParentID: p, ForkSequence: int64(len(n))}
		if err := register(ctx, c, b); err != nil {
			return err
		}
	}
	for _, n := range []string{"a", "b", "c"} {
		want = append(want, spi.Branch{ID: p + "/" + n, ParentID: p, ForkSequence: 1})
	}
	// A grandchild and a sibling tree must not show up.
	if err := register(ctx, c, spi.Branch{ID: p + "/a/x", ParentID: p + "/a", ForkSequence: 2}); err != nil {
		return err
	}
	other := c.ExecID("parent-other")
	if err := register(ctx, c, spi.Branch{ID: other + "/z", ParentID: other, ForkSequence: 2}); err != nil {
		return err
	}
	// Nor children of parents whose ids extend p's (a registry scanning a key prefix without a
	// separator mixes them, I-STORE-4).
	for _, ext := range []string{p + "0", p + "/", p + "-1"} {
		if err := register(ctx, c, spi.Branch{ID: ext + "/child", ParentID: ext, ForkSequence: 5}); err != nil {
			return err
		}
	}
	got, err := c.Store.ListChildren(ctx, p)
	if err != nil {
		return c.Failf("ListChildren", fmt.Sprintf("%q", p), err, "nil")
	}
	if got == nil {
		got = []spi.Branch{}
	}
	if err := c.Diff("ListChildren", fmt.Sprintf("%q", p), want, got, envCmp); err != nil {
		return err
	}
	none, err := c.Store.ListChildren(ctx, c.ExecID("childless"))
	if err != nil {
		return c.Failf("ListChildren", "childless", err, "nil")
	}
	if len(none) != 0 {
		return c.Failf("ListChildren", "childless", fmt.Sprintf("%d branches", len(none)), "none")
	}
	return nil
}
