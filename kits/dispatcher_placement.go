package kits

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

func dTargetsListed(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	for i, t := range ts {
		if t == "" || (i > 0 && ts[i-1] >= t) {
			return c.Failf("Targets", "", ts, "non-empty names, ascending, without duplicates")
		}
	}
	if q := queueOf(c); q != nil {
		l, ok, err := q.Claim(ctx, spi.ClaimRequest{Worker: "kit-w1", Targets: []string{}, TTL: longTTL})
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Claim", `worker "kit-w1", targets []`, claimOrErr(l, ok, err), "an invalid-argument refusal (a worker serves at least one target)")
		}
	}
	for _, t := range ts {
		p := pkgFor(c, "listed", t)
		if err := dispatch(ctx, c, p); err != nil {
			return err
		}
		if queueOf(c) == nil {
			continue
		}
		l, err := await(ctx, c, claimReq("kit-w1", longTTL, t), "dispatching to listed target "+t)
		if err != nil {
			return err
		}
		if l.Package.ExecutionID != p.ExecutionID {
			return c.Failf("Claim", "worker serving "+t, l.Package.ExecutionID, p.ExecutionID)
		}
		if err := ack(ctx, c, l); err != nil {
			return err
		}
	}
	return nil
}

func dUnknownTarget(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	unknown := fmt.Sprintf("kit-unregistered-%x", uint32(c.Seed))
	p := pkgFor(c, "unknown", unknown)
	err = c.Store.Dispatch(ctx, p)
	if !errors.Is(err, spi.ErrUnknownTarget) {
		return c.Failf("Dispatch", fmt.Sprintf("%q, target %q", p.ExecutionID, unknown), err, "an unknown-target refusal")
	}
	if !strings.Contains(err.Error(), unknown) {
		return c.Failf("Dispatch", fmt.Sprintf("target %q", unknown), err, "an error naming the target")
	}
	if queueOf(c) != nil {
		return never(ctx, c, claimReq("kit-w1", longTTL, append([]string{unknown}, ts...)...), "a refused dispatch")
	}
	return nil
}

func dRouting(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	elsewhere := fmt.Sprintf("kit-elsewhere-%x", uint32(c.Seed))
	pinned := pkgFor(c, "pinned", ts[0])
	if err := dispatch(ctx, c, pinned); err != nil {
		return err
	}
	if err := never(ctx, c, claimReq("kit-w2", longTTL, elsewhere), "a package pinned to "+ts[0]); err != nil {
		return err
	}
	l, err := await(ctx, c, claimReq("kit-w1", longTTL, ts[0]), "a package pinned to "+ts[0])
	if err != nil {
		return err
	}
	if err := ack(ctx, c, l); err != nil {
		return err
	}
	free := pkgFor(c, "unpinned", "")
	if err := dispatch(ctx, c, free); err != nil {
		return err
	}
	l, err = await(ctx, c, claimReq("kit-w2", longTTL, elsewhere), "an unpinned package")
	if err != nil {
		return err
	}
	return ack(ctx, c, l)
}
