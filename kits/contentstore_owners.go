package kits

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

func csOwnerIsolation(ctx context.Context, c *ContentStoreCase) error {
	o, ok := c.Store.(spi.OwnedContentStore)
	if !ok {
		return c.Skip("target does not implement owner")
	}
	alice, bob := spi.ContentAccess{Owner: c.ExecID("alice")}, spi.ContentAccess{Owner: c.ExecID("bob")}
	aliceX := spi.ContentAccess{Owner: alice.Owner + "x"}
	data := unique(c, "owned", 2048, c.Rand)
	streamed := unique(c, "owned-stream", 100000, c.Rand)
	if _, err := o.PutFor(ctx, alice, data); err != nil {
		return c.Failf("PutFor", "alice", err, "nil")
	}
	if _, err := o.PutStreamFor(ctx, alice, &chunkReader{data: streamed, sizes: []int{777}}); err != nil {
		return c.Failf("PutStreamFor", "alice", err, "nil")
	}
	for _, d := range [][]byte{data, streamed} {
		dg := spi.DigestOf(d)
		got, err := o.GetFor(ctx, alice, dg)
		if err != nil || !bytes.Equal(got, d) {
			return c.Failf("GetFor", fmt.Sprintf("alice, %s) (the owner", short(dg)), gotOf(got, err), fmt.Sprintf("the %d bytes put", len(d)))
		}
		for name, a := range map[string]spi.ContentAccess{"bob": bob, "an owner extending alice's": aliceX} {
			got, err := o.GetFor(ctx, a, dg)
			if !errors.Is(err, spi.ErrNotFound) {
				return c.Failf("GetFor", fmt.Sprintf("%s, %s) of alice's content (", name, short(dg)), gotOf(got, err), "not found")
			}
		}
		if e := csAbsent(ctx, c, d, "alice's content, without an owner"); e != nil {
			return e
		}
	}
	// Content without an owner stays outside every owner's reach, and the same bytes put by two
	// owners are each readable by their owner.
	plain := unique(c, "plain", 512, c.Rand)
	if _, err := c.Store.Put(ctx, plain); err != nil {
		return c.Failf("Put", "no owner", err, "nil")
	}
	got, err := o.GetFor(ctx, bob, spi.DigestOf(plain))
	if !errors.Is(err, spi.ErrNotFound) {
		return c.Failf("GetFor", "bob) of content put without an owner (", gotOf(got, err), "not found")
	}
	if _, err := o.PutFor(ctx, bob, data); err != nil {
		return c.Failf("PutFor", "bob, the bytes alice put", err, "nil")
	}
	for name, a := range map[string]spi.ContentAccess{"alice": alice, "bob": bob} {
		got, err := o.GetFor(ctx, a, spi.DigestOf(data))
		if err != nil || !bytes.Equal(got, data) {
			return c.Failf("GetFor", name+") after (both owners put the same bytes", gotOf(got, err), "the bytes")
		}
	}
	return nil
}

func csSeals(ctx context.Context, c *ContentStoreCase) error {
	s, ok := c.Store.(spi.ContentSealer)
	if !ok {
		return c.Skip("target does not implement sealsContent")
	}
	first, err := s.SealsContent(ctx)
	if err != nil {
		return c.Failf("SealsContent", "", err, "nil")
	}
	for i := 0; i < 5; i++ {
		got, err := s.SealsContent(ctx)
		if err != nil || got != first {
			return c.Failf("SealsContent", fmt.Sprintf("call %d", i+2), refOrBool(got, err), fmt.Sprintf("%v, as on the first call", first))
		}
	}
	if first && !spi.Has(manifest.SeamContentStore, c.Store, spi.MethodOwner) {
		return c.Failf("SealsContent", ") with no owner argument (", true, "false, or the owner argument declared")
	}
	return nil
}

func csOwnersEveryMethod(ctx context.Context, c *ContentStoreCase) error {
	o, ok := c.Store.(spi.OwnedContentStore)
	if !ok {
		return c.Skip("target does not implement owner")
	}
	for _, p := range idPairs(c.ExecID("owner")) {
		// Each owner of the pair puts with each method in turn, and both read both contents: a
		// store that folds, trims or normalises owners on one method in one direction only still
		// meets it.
		for i, way := range [][2]string{{p[0], p[1]}, {p[1], p[0]}} {
			a, b := spi.ContentAccess{Owner: way[0]}, spi.ContentAccess{Owner: way[1]}
			da, db := unique(c, fmt.Sprintf("of-%s-%d", a.Owner, i), 600, c.Rand), unique(c, fmt.Sprintf("of-%s-%d", b.Owner, i), 9000, c.Rand)
			if _, err := o.PutFor(ctx, a, da); err != nil {
				return c.Failf("PutFor", fmt.Sprintf("%q", a.Owner), err, "nil")
			}
			if _, err := o.PutStreamFor(ctx, b, &chunkReader{data: db, sizes: []int{4096, 17}}); err != nil {
				return c.Failf("PutStreamFor", fmt.Sprintf("%q", b.Owner), err, "nil")
			}
			for _, x := range []struct {
				who   spi.ContentAccess
				data  []byte
				owner string
				how   string
			}{{a, da, a.Owner, "PutFor"}, {b, da, a.Owner, "PutFor"}, {a, db, b.Owner, "PutStreamFor"}, {b, db, b.Owner, "PutStreamFor"}} {
				dg := spi.DigestOf(x.data)
				got, err := o.GetFor(ctx, x.who, dg)
				args := fmt.Sprintf("%q, %s) of content put by %s for (%q", x.who.Owner, short(dg), x.how, x.owner)
				if x.who.Owner == x.owner {
					if err != nil || !bytes.Equal(got, x.data) {
						return c.Failf("GetFor", args, gotOf(got, err), fmt.Sprintf("the %d bytes put", len(x.data)))
					}
				} else if !errors.Is(err, spi.ErrNotFound) {
					return c.Failf("GetFor", args, gotOf(got, err), "not found")
				}
			}
		}
	}
	// The empty owner is no owner: what the plain methods put, getFor with the empty owner reads,
	// and the other way round.
	none := spi.ContentAccess{}
	plain, owned := unique(c, "plain-none", 300, c.Rand), unique(c, "empty-owner", 300, c.Rand)
	if _, err := c.Store.Put(ctx, plain); err != nil {
		return c.Failf("Put", "no owner", err, "nil")
	}
	if got, err := o.GetFor(ctx, none, spi.DigestOf(plain)); err != nil || !bytes.Equal(got, plain) {
		return c.Failf("GetFor", `"") of content put without an owner (`, gotOf(got, err), "the bytes put")
	}
	if _, err := o.PutFor(ctx, none, owned); err != nil {
		return c.Failf("PutFor", `""`, err, "nil")
	}
	return csGet(ctx, c, owned, `PutFor with the empty owner`)
}
