package kits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// ContentStoreCase is what a ContentStore check runs against.
type ContentStoreCase = Case[spi.ContentStore]

// ContentStoreKit is the ContentStore conformance kit (spec §7, plugin tier).
func ContentStoreKit() Kit[spi.ContentStore] {
	type C = Check[spi.ContentStore]
	return Kit[spi.ContentStore]{Name: "contentstore", Seam: manifest.SeamContentStore, Checks: append([]C{
		{ID: "contentstore/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *ContentStoreCase) error {
				return versionClaim(c, manifest.SeamContentStore)
			}},
		{ID: "contentstore/put-get", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-1"}, Level: spec.Must,
			Doc: "put returns the sha256 digest and size of the bytes; get returns them exactly (empty, binary with NUL and invalid UTF-8, 1 MiB)", Run: csPutGet},
		{ID: "contentstore/put-idempotent", Clauses: []string{"I-PLUGIN-1"}, Level: spec.Must,
			Doc: "putting bytes already stored (also by racing writers) returns the same ref and keeps them readable", Run: csIdempotent},
		{ID: "contentstore/get-unknown", Clauses: []string{"I-PLUGIN-1"}, Level: spec.Must,
			Doc: "get of a well-formed digest never put is not-found; a malformed digest is an invalid argument", Run: csGetUnknown},
		{ID: "contentstore/put-stream", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-1", "I-PLUGIN-2"}, Level: spec.Must,
			Doc: "putStream of content in uneven chunks returns the same ref as put and the bytes read back exactly", Run: csPutStream},
		{ID: "contentstore/put-stream-failure", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-2"}, Level: spec.Must,
			Doc: "a stream whose source fails midway returns an error and leaves neither the whole content nor the part read visible, through putStream and (when declared) the owner's putStreamFor", Run: csStreamFailure},
		{ID: "contentstore/put-stream-cancel", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-2"}, Level: spec.Must,
			Doc: "a stream cancelled midway has exactly one outcome: an error and nothing visible then or later, or a ref and the whole content", Run: csStreamCancel},
		{ID: "contentstore/owner-isolation", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-3"}, Level: spec.Must,
			Requires: []string{spi.MethodOwner}, Doc: "content put for one owner (put and putStream) is not readable through another owner's access or without one", Run: csOwnerIsolation},
		{ID: "contentstore/seals-content", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-4"}, Level: spec.Must,
			Requires: []string{spi.MethodSealsContent}, Doc: "sealsContent answers the same on every call, and a store that seals takes the owner argument", Run: csSeals},
	}, csGapChecks()...)}
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

func csPutGet(ctx context.Context, c *ContentStoreCase) error {
	binary := append(unique(c, "bin", 300, c.Rand), 0, 0xff, 0xfe, '\n', 0, 0xc3)
	for _, data := range [][]byte{unique(c, "small", 10, c.Rand), binary, unique(c, "big", 1<<20, c.Rand), {}} {
		ref, err := c.Store.Put(ctx, data)
		if err != nil {
			return c.Failf("Put", fmt.Sprintf("%d bytes", len(data)), err, "nil")
		}
		if want := spi.RefOf(data); ref != want {
			return c.Failf("Put", fmt.Sprintf("%d bytes", len(data)), fmt.Sprintf("%+v", ref), fmt.Sprintf("%+v", want))
		}
		if err := csGet(ctx, c, data, "Put"); err != nil {
			return err
		}
	}
	return nil
}

func csIdempotent(ctx context.Context, c *ContentStoreCase) error {
	data := unique(c, "twice", 4096, c.Rand)
	want := spi.RefOf(data)
	for i := 0; i < 2; i++ {
		ref, err := c.Store.Put(ctx, bytes.Clone(data))
		if err != nil || ref != want {
			return c.Failf("Put", fmt.Sprintf("%d bytes, time %d", len(data), i+1), refOrErr(ref, err), fmt.Sprintf("%+v", want))
		}
	}
	race := unique(c, "race", 8192, c.Rand)
	wantRace := spi.RefOf(race)
	const n = 6
	errs := make([]error, n)
	refs := make([]spi.ContentRef, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer c.Recover()
			<-gate
			if i%2 == 0 {
				refs[i], errs[i] = c.Store.Put(ctx, bytes.Clone(race))
			} else {
				refs[i], errs[i] = c.Store.PutStream(ctx, &chunkReader{data: race, sizes: []int{1000, 7}})
			}
		}(i)
	}
	close(gate)
	wg.Wait()
	for i := range errs {
		if errs[i] != nil || refs[i] != wantRace {
			return c.Failf("Put", fmt.Sprintf("%d bytes, %d racing writers (put and putStream)", len(race), n), refOrErr(refs[i], errs[i]), fmt.Sprintf("%+v", wantRace))
		}
	}
	if err := csGet(ctx, c, data, "two puts"); err != nil {
		return err
	}
	return csGet(ctx, c, race, "racing puts")
}

func refOrErr(ref spi.ContentRef, err error) any {
	if err != nil {
		return err
	}
	return fmt.Sprintf("%+v", ref)
}

func csGetUnknown(ctx context.Context, c *ContentStoreCase) error {
	if err := csAbsent(ctx, c, unique(c, "never", 64, c.Rand), "bytes never put"); err != nil {
		return err
	}
	good := spi.DigestOf([]byte("x"))
	for _, bad := range []string{"", "sha256:", "sha256:abc", "md5:" + good[7:39], "SHA256:" + good[7:], "sha256:" + good[7:70] + "G",
		"sha256:" + string(bytes.ToUpper([]byte(good[7:]))), good + "00", "../" + good} {
		got, err := c.Store.Get(ctx, bad)
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Get", fmt.Sprintf("%q", bad), gotOf(got, err), "an invalid-argument error")
		}
	}
	return nil
}

// chunkReader yields data in chunks of the given sizes (cycled), then fails with failErr after
// failAt bytes when failErr is set, or blocks at failAt until block is closed.
type chunkReader struct {
	data    []byte
	sizes   []int
	i, off  int
	failAt  int
	failErr error
	block   <-chan struct{}
	reached chan struct{}
	once    sync.Once
}

var errSourceFailed = errors.New("kit: the stream's source failed")

func (r *chunkReader) Read(p []byte) (int, error) {
	limit := len(r.data)
	if r.failErr != nil || r.block != nil {
		limit = r.failAt
	}
	if r.off >= limit {
		if r.reached != nil {
			r.once.Do(func() { close(r.reached) })
		}
		if r.failErr != nil {
			return 0, r.failErr
		}
		if r.block != nil {
			<-r.block
			return 0, errSourceFailed
		}
		return 0, io.EOF
	}
	n := r.sizes[r.i%len(r.sizes)]
	r.i++
	n = min(n, len(p), limit-r.off)
	copy(p, r.data[r.off:r.off+n])
	r.off += n
	return n, nil
}

func csPutStream(ctx context.Context, c *ContentStoreCase) error {
	for _, data := range [][]byte{unique(c, "stream", 1<<20+64<<10+17, c.Rand), unique(c, "stream-small", 40, c.Rand), {}} {
		ref, err := c.Store.PutStream(ctx, &chunkReader{data: data, sizes: []int{1, 4093, 65536, 3, 200000}})
		if err != nil {
			return c.Failf("PutStream", fmt.Sprintf("%d bytes in uneven chunks", len(data)), err, "nil")
		}
		if want := spi.RefOf(data); ref != want {
			return c.Failf("PutStream", fmt.Sprintf("%d bytes", len(data)), fmt.Sprintf("%+v", ref), fmt.Sprintf("%+v", want))
		}
		if err := csGet(ctx, c, data, "PutStream"); err != nil {
			return err
		}
	}
	return nil
}

func csStreamFailure(ctx context.Context, c *ContentStoreCase) error {
	data := unique(c, "fails", 1<<20, c.Rand)
	// The outcome contract holds on the owner's putStreamFor as on putStream (I-PLUGIN-14).
	owned, hasOwner := c.Store.(spi.OwnedContentStore)
	hasOwner = hasOwner && spi.Has(manifest.SeamContentStore, c.Store, spi.MethodOwner)
	owner := spi.ContentAccess{Owner: c.ExecID("stream-owner")}
	for i, at := range []int{0, 1, 70000, len(data) - 1} {
		data := append(bytes.Clone(data), byte(at), byte(at>>8), byte(at>>16))
		src := &chunkReader{data: data, sizes: []int{65536, 13}, failAt: at, failErr: errSourceFailed}
		op := "PutStream"
		var ref spi.ContentRef
		var err error
		if hasOwner && i%2 == 1 {
			op = "PutStreamFor"
			ref, err = owned.PutStreamFor(ctx, owner, src)
		} else {
			ref, err = c.Store.PutStream(ctx, src)
		}
		if err == nil {
			return c.Failf(op, fmt.Sprintf("%d bytes, source failing after %d", len(data), at), fmt.Sprintf("%+v", ref), "an error")
		}
		for _, part := range [][]byte{data[:at], data} {
			what := fmt.Sprintf("the %d bytes read before the source failed", at)
			if len(part) == len(data) {
				what = "content whose stream failed"
			} else if at == 0 {
				continue
			}
			if e := csAbsent(ctx, c, part, what); e != nil {
				return e
			}
			if op == "PutStreamFor" {
				got, err := owned.GetFor(ctx, owner, spi.DigestOf(part))
				if !errors.Is(err, spi.ErrNotFound) {
					return c.Failf("GetFor", fmt.Sprintf("%q, %s) of %s by PutStreamFor (", owner.Owner, short(spi.DigestOf(part)), what), gotOf(got, err), "not found")
				}
			}
		}
	}
	return nil
}

func csStreamCancel(ctx context.Context, c *ContentStoreCase) error {
	data := unique(c, "cancel", 512<<10, c.Rand)
	for _, at := range []int{1, 100000} {
		data := append(bytes.Clone(data), byte(at), byte(at>>8), byte(at>>16))
		block := make(chan struct{})
		r := &chunkReader{data: data, sizes: []int{4096}, failAt: at, block: block, reached: make(chan struct{})}
		sctx, cancel := context.WithCancel(ctx)
		type res struct {
			ref spi.ContentRef
			err error
		}
		done := make(chan res, 1)
		go func() {
			defer c.Recover()
			ref, err := c.Store.PutStream(sctx, r)
			done <- res{ref, err}
		}()
		select {
		case <-r.reached:
		case o := <-done:
			cancel()
			close(block)
			return c.Failf("PutStream", fmt.Sprintf("%d bytes, source blocking after %d", len(data), at), refOrErr(o.ref, o.err), "still reading when the kit cancels")
		case <-ctx.Done():
			cancel()
			close(block)
			return ctx.Err()
		}
		cancel()
		// The source stays blocked a little after the cancellation, as a slow network would; the
		// store must not wait for it to finish to honour the cancellation, and must then answer.
		time.AfterFunc(50*time.Millisecond, func() { close(block) })
		var o res
		select {
		case o = <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if o.err == nil {
			if o.ref != spi.RefOf(data) {
				return c.Failf("PutStream", fmt.Sprintf("%d bytes, cancelled after %d", len(data), at), fmt.Sprintf("%+v", o.ref), "an error, or the ref of the whole content")
			}
			if err := csGet(ctx, c, data, "a cancelled stream that reported success"); err != nil {
				return err
			}
			continue
		}
		// An error: nothing may be visible, now or after the store had time to finish any work it
		// left running.
		for _, wait := range []time.Duration{0, 150 * time.Millisecond} {
			time.Sleep(wait)
			if e := csAbsent(ctx, c, data, fmt.Sprintf("content whose stream was cancelled after %d bytes and reported %q, %s later", at, o.err, wait)); e != nil {
				return e
			}
			if e := csAbsent(ctx, c, data[:at], fmt.Sprintf("the %d bytes read before the cancellation", at)); e != nil {
				return e
			}
		}
	}
	return nil
}

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

func refOrBool(b bool, err error) any {
	if err != nil {
		return err
	}
	return b
}
