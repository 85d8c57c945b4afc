package kits

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// ContentStoreCase is what a ContentStore check runs against.
type ContentStoreCase = Case[spi.ContentStore]

// ContentStoreKit is the ContentStore conformance kit (spec §7, plugin tier).
func ContentStoreKit() Kit[spi.ContentStore] {
	type C = Check[spi.ContentStore]
	return Kit[spi.ContentStore]{Name: "contentstore", Seam: manifest.SeamContentStore, Checks: []C{
		{ID: "contentstore/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *ContentStoreCase) error {
				return versionClaim(c, manifest.SeamContentStore)
			}},
		{ID: "contentstore/put-get", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-1"}, Level: spec.Must,
			Doc: "put returns the sha256 digest and size of the bytes; get returns them exactly (empty, binary with NUL and invalid UTF-8, 1 MiB)", Run: csPutGet},
		{ID: "contentstore/put-idempotent", Clauses: []string{"I-PLUGIN-1"}, Level: spec.Must,
			Doc: "putting bytes already stored (also by six racing writers, 8 rounds of new bytes) returns the same ref and keeps them readable", Run: csIdempotent},
		{ID: "contentstore/get-unknown", Clauses: []string{"I-PLUGIN-1"}, Level: spec.Must,
			Doc: "get of a well-formed digest never put is not-found", Run: csGetUnknown},
		{ID: "contentstore/get-malformed-digest", Clauses: []string{"I-PLUGIN-17"}, Level: spec.Must,
			Doc: "get of a malformed digest (empty, truncated, upper-case, another algorithm, a path) is an invalid argument, not not-found; our choice, so recommended", Run: csGetMalformed},
		{ID: "contentstore/refusal-order", Clauses: []string{"I-STORE-56"}, Level: spec.Must,
			Doc: "a malformed digest is invalid whoever asks for it (an owner that stored nothing included), never not found; our choice, so recommended", Run: csRefusalOrder},
		{ID: "contentstore/put-stream", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-1", "I-PLUGIN-2"}, Level: spec.Must,
			Doc: "putStream of content in uneven chunks returns the same ref as put and the bytes read back exactly", Run: csPutStream},
		{ID: "contentstore/put-stream-failure", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-2"}, Level: spec.Must,
			Doc: "a stream whose source fails midway returns an error and leaves neither the whole content nor the part read visible, through putStream and (when declared) the owner's putStreamFor", Run: csStreamFailure},
		{ID: "contentstore/put-stream-cancel", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-2"}, Level: spec.Must,
			Doc: "a stream cancelled midway has exactly one outcome: an error and nothing visible then or later, or a ref and the whole content", Run: csStreamCancel},
		{ID: "contentstore/owner-isolation", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-3"}, Level: spec.Must,
			Requires: []string{spi.MethodOwner}, Doc: "content put for one owner (put and putStream) is not readable through another owner's access or without one", Run: csOwnerIsolation},
		{ID: "contentstore/seals-content", Clauses: []string{"I-PLUGIN-4"}, Level: spec.Must,
			Requires: []string{spi.MethodSealsContent}, Doc: "sealsContent answers the same on every call, and a store that seals takes the owner argument; our choices, so recommended", Run: csSeals},
		{ID: "contentstore/owners-apart-every-method", Clauses: []string{"I-PLUGIN-3", "I-PLUGIN-14", "I-STORE-4", "I-STORE-80"}, Level: spec.Must,
			Requires: []string{spi.MethodOwner}, Doc: "putFor, putStreamFor and getFor keep owners apart that differ only by case, trailing space or normal form, or extend one another (also after : / . | _ - blank %), or differ by one delimiter swapped for another or for its escape, or are 1 024 bytes long and differ only in their last byte, each owner of a pair putting with each method; the empty owner is the plain methods' (no owner)", Run: csOwnersEveryMethod},
		{ID: "contentstore/json-content-bytes", Clauses: []string{"I-PLUGIN-1", "I-PLUGIN-12"}, Level: spec.Must,
			Doc: "content that is JSON is kept as bytes: two spellings of one value (key order, exponent, escapes, spacing) get two digests and each reads back byte for byte", Run: csJSONContentBytes},
		{ID: "contentstore/explore", Clauses: csExplore().clauses(), Level: spec.Must,
			Doc: "seeded scripts of puts, streamed puts (whole, in odd small reads, failing halfway: any refusal, and nothing stored) and gets of what was put, of what never was and of malformed digests, plainly and under owners that differ by one delimiter, a case, a normal form, a prefix or a long tail (1 024 bytes and past it), with content from the round-trip corpus, answer as the in-memory reference does; about one step in five is two made at once on one id, each by its own client, answered as the reference answers them in one order or the other (the first difference is shrunk to a minimal script); cancelling a stream through its context is timing, left to contentstore/put-stream-cancel", Run: csExplore().run},
		{ID: "contentstore/readers-whole-content", Clauses: []string{"I-PLUGIN-2", "I-PLUGIN-13"}, Level: spec.Must,
			Doc: "readers racing put and putStream of large content see not-found or the whole content under its digest, never part of it, and never not-found once they saw it, also while stored content is put again; 16 rounds of 68 KiB, three readers reading the digest before, during and after each write (sees a partial write visible for at least one read)", Run: csReadersWholeContent},
	}}
}

// CheckContentStore runs the ContentStore kit and returns errors.Join of every failure and unknown.
func CheckContentStore(ctx context.Context, factory Factory[spi.ContentStore], opts Options) error {
	results, err := Run(ctx, ContentStoreKit(), factory, opts)
	if err != nil {
		return err
	}
	return Errors(results)
}

// unique returns bytes no other check or run writes: a tag, the case's id and random filler.
func unique(c interface{ ExecID(string) string }, tag string, n int, r interface{ Read([]byte) (int, error) }) []byte {
	head := []byte(c.ExecID(tag) + "\x00")
	if n < len(head) {
		n = len(head)
	}
	out := make([]byte, n)
	copy(out, head)
	_, _ = r.Read(out[len(head):])
	return out
}

func csGet(ctx context.Context, c *ContentStoreCase, want []byte, after string) error {
	d := spi.DigestOf(want)
	got, err := c.Store.Get(ctx, d)
	if err != nil {
		return c.Failf("Get", fmt.Sprintf("%s) after (%s", short(d), after), err, fmt.Sprintf("%d bytes", len(want)))
	}
	if !bytes.Equal(got, want) {
		return c.Failf("Get", fmt.Sprintf("%s) after (%s", short(d), after), fmt.Sprintf("%d other bytes (first difference at %d)", len(got), firstDiff(got, want)), fmt.Sprintf("the %d bytes put", len(want)))
	}
	return nil
}

func csAbsent(ctx context.Context, c *ContentStoreCase, data []byte, what string) error {
	d := spi.DigestOf(data)
	got, err := c.Store.Get(ctx, d)
	if !errors.Is(err, spi.ErrNotFound) {
		return c.Failf("Get", fmt.Sprintf("%s) of %s (", short(d), what), gotOf(got, err), "not found")
	}
	return nil
}

func gotOf(b []byte, err error) any {
	if err != nil {
		return err
	}
	return fmt.Sprintf("%d bytes", len(b))
}

func short(d string) string {
	if len(d) > 19 {
		return d[:19] + "…"
	}
	return d
}

func firstDiff(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func refOrErr(ref spi.ContentRef, err error) any {
	if err != nil {
		return err
	}
	return ref
}

func refOrBool(b bool, err error) any {
	if err != nil {
		return err
	}
	return b
}
