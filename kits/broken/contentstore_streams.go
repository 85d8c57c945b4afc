package broken

import (
	"context"
	"io"

	"github.com/loom-kernel/loom-conform/spi"
)

// readPartial reads r until its first error, returning what it read and that error (nil at EOF).
func readPartial(ctx context.Context, r io.Reader) ([]byte, error) {
	var out []byte
	buf := make([]byte, 32<<10)
	for {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// --- a failed stream keeps the part it read, under that part's digest.
type partialStreamVisible struct{ cs }

func (s partialStreamVisible) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	data, err := readPartial(ctx, r)
	if len(data) > 0 {
		_, _ = s.cs.Put(context.Background(), data)
	}
	if err != nil {
		return spi.ContentRef{}, err
	}
	return s.cs.Put(ctx, data)
}

// --- the source's error is taken for the end of the stream: the prefix is committed as content.
type streamSwallowsError struct{ cs }

func (s streamSwallowsError) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	data, _ := readPartial(ctx, r)
	return s.cs.Put(context.Background(), data)
}

// --- a cancelled stream reports the cancellation, but its background upload goes on and commits
// whatever it had read when the source gave out (a second outcome after the first).
type commitsAfterCancel struct{ cs }

func (s commitsAfterCancel) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	type res struct {
		data []byte
		err  error
	}
	done := make(chan res, 1)
	go func() {
		d, err := readPartial(context.Background(), r)
		done <- res{d, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			return spi.ContentRef{}, o.err
		}
		return s.cs.Put(ctx, o.data)
	case <-ctx.Done():
		go func() {
			o := <-done
			_, _ = s.cs.Put(context.Background(), o.data)
		}()
		return spi.ContentRef{}, ctx.Err()
	}
}

// --- putStreamFor, unlike putStream, commits what it read before its source failed (the owner's
// method has its own, older stream code).
type ownerStreamKeepsPartial struct{ cs }

func (s ownerStreamKeepsPartial) PutStreamFor(ctx context.Context, a spi.ContentAccess, r io.Reader) (spi.ContentRef, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		_, _ = s.cs.PutFor(ctx, a, data)
		return spi.ContentRef{}, err
	}
	return s.cs.PutFor(ctx, a, data)
}
