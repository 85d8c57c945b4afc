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
	"github.com/loom-kernel/loom-conform/spi"
)

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
			return c.Failf("PutStream", fmt.Sprintf("%d bytes", len(data)), ref, want)
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
			return c.Failf(op, fmt.Sprintf("%d bytes, source failing after %d", len(data), at), ref, "an error")
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
				return c.Failf("PutStream", fmt.Sprintf("%d bytes, cancelled after %d", len(data), at), o.ref, "an error, or the ref of the whole content")
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
