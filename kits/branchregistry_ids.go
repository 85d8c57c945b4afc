package kits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

func brIDsEveryMethod(ctx context.Context, c *BranchRegistryCase) error {
	root := c.ExecID("root")
	for _, p := range idPairs(c.ExecID("ids")) {
		a, b := p[0], p[1]
		ba := spi.Branch{ID: a, ParentID: root, ForkSequence: 1, Metadata: json.RawMessage(`{"of":"a"}`)}
		bb := spi.Branch{ID: b, ParentID: root, ForkSequence: 2, Metadata: json.RawMessage(`{"of":"b"}`)}
		if err := register(ctx, c, ba); err != nil {
			return err
		}
		if err := c.Store.Register(ctx, bb); err != nil {
			return c.Failf("Register", fmt.Sprintf("%q) next to (%q", b, a), err, "nil (another id)")
		}
		if err := expectBranch(ctx, c, ba, fmt.Sprintf("registering %q", b)); err != nil {
			return err
		}
		if err := expectBranch(ctx, c, bb, fmt.Sprintf("registering %q", a)); err != nil {
			return err
		}
		// Parents that differ the same way have their own children.
		ca := spi.Branch{ID: a + "/child", ParentID: a, ForkSequence: 3}
		cb := spi.Branch{ID: b + "/child", ParentID: b, ForkSequence: 4}
		if err := register(ctx, c, ca); err != nil {
			return err
		}
		if err := register(ctx, c, cb); err != nil {
			return err
		}
		for _, x := range []struct {
			parent string
			want   []spi.Branch
		}{{a, []spi.Branch{ca}}, {b, []spi.Branch{cb}}} {
			got, err := c.Store.ListChildren(ctx, x.parent)
			if err != nil {
				return c.Failf("ListChildren", fmt.Sprintf("%q", x.parent), err, "nil")
			}
			if got == nil {
				got = []spi.Branch{}
			}
			if d := c.Diff("ListChildren", fmt.Sprintf("%q) next to (%q", x.parent, other(x.parent, a, b)), x.want, got, envCmp); d != nil {
				return d
			}
		}
	}
	return nil
}
