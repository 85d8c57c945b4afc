package kits

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// csGapChecks apply the cross-seam rules to the ContentStore: owners on every method, content
// compared by its bytes, and content seen whole by concurrent readers.
func csGapChecks() []Check[spi.ContentStore] {
	type C = Check[spi.ContentStore]
	return []C{
		{ID: "contentstore/owners-apart-every-method", Clauses: []string{"I-PLUGIN-3", "I-PLUGIN-14", "I-STORE-4"}, Level: spec.Must,
			Requires: []string{spi.MethodOwner}, Doc: "putFor, putStreamFor and getFor keep owners apart that differ only by case, trailing space or normal form, or extend one another; the empty owner is the plain methods' (no owner)", Run: csOwnersEveryMethod},
		{ID: "contentstore/json-content-bytes", Clauses: []string{"I-PLUGIN-1", "I-PLUGIN-12"}, Level: spec.Must,
			Doc: "content that is JSON is kept as bytes: two spellings of one value (key order, exponent, escapes, spacing) get two digests and each reads back byte for byte", Run: csJSONContentBytes},
		{ID: "contentstore/readers-whole-content", Clauses: []string{"I-PLUGIN-2", "I-PLUGIN-13"}, Level: spec.Must,
			Doc: "readers racing put and putStream of large content see not-found or the whole content under its digest, never part of it, and never not-found once they saw it (sees a partial write visible for at least one scheduling slice of a reader)", Run: csReadersWholeContent},
	}
}

func csOwnersEveryMethod(ctx context.Context, c *ContentStoreCase) error {
	o, ok := c.Store.(spi.OwnedContentStore)
	if !ok {
		return c.Skip("target does not implement owner")
	}
	for _, p := range idPairs(c.ExecID("owner")) {
		a, b := spi.ContentAccess{Owner: p[0]}, spi.ContentAccess{Owner: p[1]}
		da, db := unique(c, "of-"+p[0], 600, c.Rand), unique(c, "of-"+p[1], 70000, c.Rand)
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
		}{{a, da, a.Owner}, {b, da, a.Owner}, {a, db, b.Owner}, {b, db, b.Owner}} {
			dg := spi.DigestOf(x.data)
			got, err := o.GetFor(ctx, x.who, dg)
			args := fmt.Sprintf("%q, %s) of content put for (%q", x.who.Owner, short(dg), x.owner)
			if x.who.Owner == x.owner {
				if err != nil || !bytes.Equal(got, x.data) {
					return c.Failf("GetFor", args, gotOf(got, err), fmt.Sprintf("the %d bytes put", len(x.data)))
				}
			} else if !errors.Is(err, spi.ErrNotFound) {
				return c.Failf("GetFor", args, gotOf(got, err), "not found")
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
	const n = 6
	contents := make([][]byte, n)
	for i := range contents {
		contents[i] = unique(c, fmt.Sprintf("whole-%d", i), 256<<10, c.Rand)
	}
	const readers = 3
	seenWhole := make([][n]bool, readers) // per reader, the contents it has read whole
	return withReaders(ctx, c, readers, 20, func() error {
		for i, data := range contents {
			if ctx.Err() != nil {
				return nil
			}
			var ref spi.ContentRef
			var err error
			if i%2 == 0 {
				ref, err = c.Store.Put(ctx, data)
			} else {
				ref, err = c.Store.PutStream(ctx, &chunkReader{data: data, sizes: []int{65536, 4093}})
			}
			if err != nil || ref != spi.RefOf(data) {
				return c.Failf([]string{"Put", "PutStream"}[i%2], fmt.Sprintf("%d bytes", len(data)), refOrErr(ref, err), fmt.Sprintf("%+v", spi.RefOf(data)))
			}
		}
		return nil
	}, func(r int) error {
		for i, data := range contents {
			dg := spi.DigestOf(data)
			got, err := c.Store.Get(ctx, dg)
			whole := seenWhole[r][i]
			switch {
			case errors.Is(err, spi.ErrNotFound) && !whole:
			case err == nil && bytes.Equal(got, data):
				seenWhole[r][i] = true
			case err == nil:
				return c.Failf("Get", fmt.Sprintf("%s) racing puts of %d bytes (", short(dg), len(data)), fmt.Sprintf("%d bytes (first difference at %d)", len(got), firstDiff(got, data)), "not found or the whole content")
			case whole:
				return c.Failf("Get", fmt.Sprintf("%s) racing puts, after this reader had read it whole (", short(dg)), err, "the whole content")
			default:
				return c.Failf("Get", fmt.Sprintf("%s) racing puts (", short(dg)), err, "not found or the whole content")
			}
		}
		return nil
	})
}
