package kits

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

func asIsolation(ctx context.Context, c *ArchiveStoreCase) error {
	a, b := c.ExecID("iso-a"), c.ExecID("iso-b")
	ra, rb := removed(a, 3), removed(b, 2)
	if err := archive(ctx, c, a, ra); err != nil {
		return err
	}
	if err := archive(ctx, c, b, rb); err != nil {
		return err
	}
	if err := expectArchive(ctx, c, a, ra, "archiving two executions"); err != nil {
		return err
	}
	if err := expectArchive(ctx, c, b, rb, "archiving two executions"); err != nil {
		return err
	}
	// Ids that extend a's id hold other and later sequences; a's archive stays a's own (I-STORE-4).
	for _, ext := range []string{a + "0", a + "/", a + "-1"} {
		if err := archive(ctx, c, ext, removed(ext, 6)); err != nil {
			return err
		}
	}
	return expectArchive(ctx, c, a, ra, "archiving ids that extend it")
}

func asIDsEveryMethod(ctx context.Context, c *ArchiveStoreCase) error {
	for _, p := range idPairs(c.ExecID("ids")) {
		a, b := p[0], p[1]
		ra, rb := removed(a, 2), removed(b, 4)
		if err := archive(ctx, c, b, rb); err != nil {
			return err
		}
		if err := archive(ctx, c, a, ra); err != nil {
			return err
		}
		both := fmt.Sprintf("archiving %q and %q", a, b)
		if err := expectArchive(ctx, c, a, ra, both); err != nil {
			return err
		}
		if err := expectArchive(ctx, c, b, rb, both); err != nil {
			return err
		}
		if asHas(c, spi.MethodReplaceSegments) {
			r0 := env(a, 0, "replaced")
			if err := c.Store.(spi.SegmentReplacer).ReplaceSegments(ctx, a, spi.SeqRange{From: 0, Through: 4}, []spi.Envelope{r0}); err != nil {
				return c.Failf("ReplaceSegments", fmt.Sprintf("%q, [0, 4], [seq 0]", a), err, "nil")
			}
			ra = []spi.Envelope{r0}
			if err := expectArchive(ctx, c, b, rb, fmt.Sprintf("ReplaceSegments on %q", a)); err != nil {
				return err
			}
			if err := expectArchive(ctx, c, a, ra, "ReplaceSegments([0,4], seq 0)"); err != nil {
				return err
			}
		}
		if asHas(c, spi.MethodDeleteExecution) {
			// Both ways: a delete that matches by prefix or pattern takes the other id with it in
			// one direction only.
			del := c.Store.(spi.ArchiveDeleter)
			if err := del.DeleteExecution(ctx, a); err != nil {
				return c.Failf("DeleteExecution", fmt.Sprintf("%q", a), err, "nil")
			}
			if err := expectArchive(ctx, c, b, rb, fmt.Sprintf("DeleteExecution of %q", a)); err != nil {
				return err
			}
			if err := archive(ctx, c, a, ra); err != nil {
				return err
			}
			if err := del.DeleteExecution(ctx, b); err != nil {
				return c.Failf("DeleteExecution", fmt.Sprintf("%q", b), err, "nil")
			}
			if err := expectArchive(ctx, c, a, ra, fmt.Sprintf("DeleteExecution of %q", b)); err != nil {
				return err
			}
		}
	}
	return nil
}
