package kits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// csGapChecks apply the cross-seam rules to the ContentStore: owners on every method, content
// compared by its bytes, and content seen whole by concurrent readers.
func csGapChecks() []Check[spi.ContentStore] {
	type C = Check[spi.ContentStore]
	return []C{
		{ID: "contentstore/owners-apart-every-method", Clauses: []string{"I-PLUGIN-3", "I-PLUGIN-14", "I-STORE-4"}, Level: spec.Must,
			Requires: []string{spi.MethodOwner}, Doc: "putFor, putStreamFor and getFor keep owners apart that differ only by case, trailing space or normal form, or extend one another (also after : / . |), each owner of a pair putting with each method; the empty owner is the plain methods' (no owner)", Run: csOwnersEveryMethod},
		{ID: "contentstore/json-content-bytes", Clauses: []string{"I-PLUGIN-1", "I-PLUGIN-12"}, Level: spec.Must,
			Doc: "content that is JSON is kept as bytes: two spellings of one value (key order, exponent, escapes, spacing) get two digests and each reads back byte for byte", Run: csJSONContentBytes},
		{ID: "contentstore/readers-whole-content", Clauses: []string{"I-PLUGIN-2", "I-PLUGIN-13"}, Level: spec.Must,
			Doc: "readers racing put and putStream of large content see not-found or the whole content under its digest, never part of it, and never not-found once they saw it, also while stored content is put again; 8 rounds of 68 KiB, two readers reading the digest before, during and after each write (sees a partial write visible for at least one read)", Run: csReadersWholeContent},
	}
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

// jsonSpellings are byte-different spellings of one JSON value.
var jsonSpellings = []string{
	`{"a":1,"b":[true,null,"x"],"n":12345678901234567890}`,
	`{"b":[true,null,"x"],"a":1,"n":12345678901234567890}`,
	`{ "a" : 1.0, "b" : [ true, null, "\u0078" ], "n" : 1.234567890123456789e19 }`,
	"{\n  \"a\": 10e-1,\n  \"b\": [true, null, \"x\"],\n  \"n\": 12345678901234567890\n}\n",
}

func csJSONContentBytes(ctx context.Context, c *ContentStoreCase) error {
	tag := fmt.Sprintf(`{"case":%q,"v":`, c.ExecID("json"))
	seen := map[string]int{}
	for i, s := range jsonSpellings {
		data := []byte(tag + s + "}")
		ref, err := c.Store.Put(ctx, data)
		if err != nil {
			return c.Failf("Put", fmt.Sprintf("JSON spelling %d (%s)", i+1, clipS(string(data))), err, "nil")
		}
		if want := spi.RefOf(data); ref != want {
			return c.Failf("Put", fmt.Sprintf("JSON spelling %d (%s)", i+1, clipS(string(data))), fmt.Sprintf("%+v", ref), fmt.Sprintf("%+v (the digest of the bytes)", want))
		}
		if j, dup := seen[ref.Digest]; dup {
			return c.Failf("Put", fmt.Sprintf("JSON spellings %d and %d of one value", j+1, i+1), "one digest", "two digests")
		}
		seen[ref.Digest] = i
	}
	for i, s := range jsonSpellings {
		if err := csGet(ctx, c, []byte(tag+s+"}"), fmt.Sprintf("puts of %d spellings of one JSON value, this one number %d", len(jsonSpellings), i+1)); err != nil {
			return err
		}
	}
	return nil
}

func csReadersWholeContent(ctx context.Context, c *ContentStoreCase) error {
	// Four contents, each put twice: first new, then again while it is stored (a store that
	// rewrites stored content on a repeated put shows it torn to readers that already had it).
	// Put and putStream alternate over both.
	const rounds, readers, size = 8, 2, 64<<10 + 4093
	contents := make([][]byte, rounds/2)
	for i := range contents {
		contents[i] = unique(c, fmt.Sprintf("whole-%d", i), size, c.Rand)
	}
	how := func(i int) string {
		op := []string{"Put", "PutStream", "PutStream", "Put"}[i%4]
		if i%2 == 1 {
			return op + " of stored content"
		}
		return op
	}
	seenWhole := make([][readers]bool, rounds) // per round and reader: it has read the content whole
	return readersRace(ctx, c, readers, rounds, func(ctx context.Context, i int) error {
		data := contents[i/2]
		var ref spi.ContentRef
		var err error
		if strings.HasPrefix(how(i), "PutStream") {
			ref, err = c.Store.PutStream(ctx, &chunkReader{data: data, sizes: []int{65536, 4093}})
		} else {
			ref, err = c.Store.Put(ctx, data)
		}
		if err != nil || ref != spi.RefOf(data) {
			return c.Failf(strings.Fields(how(i))[0], fmt.Sprintf("%d bytes", len(data)), refOrErr(ref, err), fmt.Sprintf("%+v", spi.RefOf(data)))
		}
		return nil
	}, func(r, i int, after bool) error {
		data := contents[i/2]
		dg := spi.DigestOf(data)
		got, err := c.Store.Get(ctx, dg)
		whole := seenWhole[i][r]
		switch {
		case err == nil && bytes.Equal(got, data):
			seenWhole[i][r] = true
		case err == nil:
			return c.Failf("Get", fmt.Sprintf("%s) racing a %s of %d bytes (", short(dg), how(i), len(data)), fmt.Sprintf("%d bytes (first difference at %d)", len(got), firstDiff(got, data)), "not found or the whole content")
		case errors.Is(err, spi.ErrNotFound) && after:
			return c.Failf("Get", fmt.Sprintf("%s) after a %s returned (", short(dg), how(i)), err, "the whole content")
		case errors.Is(err, spi.ErrNotFound) && whole:
			return c.Failf("Get", fmt.Sprintf("%s) racing a %s, after this reader had read it whole (", short(dg), how(i)), err, "the whole content")
		case !errors.Is(err, spi.ErrNotFound):
			return c.Failf("Get", fmt.Sprintf("%s) racing a %s (", short(dg), how(i)), err, "not found or the whole content")
		}
		return nil
	})
}
