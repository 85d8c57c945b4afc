package broken

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

type cs struct{ *memory.ContentStore }

func newCS() cs { return cs{memory.NewContentStore()} }

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

// --- refs use md5 and the wrong prefix.
type wrongDigest struct{ cs }

func (s wrongDigest) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	ref, err := s.cs.Put(ctx, data)
	sum := md5.Sum(data)
	ref.Digest = "md5:" + hex.EncodeToString(sum[:])
	return ref, err
}

// --- content above 64 KiB is cut to 64 KiB.
type truncatesLarge struct{ truncStore }

func (s truncatesLarge) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	ref := spi.RefOf(data)
	if len(data) > 64<<10 {
		data = data[:64<<10]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[ref.Digest] = data
	return ref, nil
}

func (s truncatesLarge) Get(ctx context.Context, digest string) ([]byte, error) {
	if err := spi.ValidateDigest("get", digest); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.m[digest]; ok {
		return d, nil
	}
	return s.cs.Get(ctx, digest)
}

type truncStore struct {
	cs
	mu *sync.Mutex
	m  map[string][]byte
}

// --- get of an unknown digest returns no bytes and no error.
type emptyForUnknown struct{ cs }

func (s emptyForUnknown) Get(ctx context.Context, digest string) ([]byte, error) {
	b, err := s.cs.Get(ctx, digest)
	if errors.Is(err, spi.ErrNotFound) {
		return []byte{}, nil
	}
	return b, err
}

// --- any string is looked up as a digest: a malformed one is simply not found.
type malformedNotFound struct{ cs }

func (s malformedNotFound) Get(ctx context.Context, digest string) ([]byte, error) {
	if spi.ValidateDigest("get", digest) != nil {
		return nil, spi.ErrNotFound
	}
	return s.cs.Get(ctx, digest)
}

// --- a second put of stored bytes is refused as already existing.
type putTwiceRefused struct{ cs }

func (s putTwiceRefused) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	if _, err := s.cs.Get(ctx, spi.DigestOf(data)); err == nil {
		return spi.ContentRef{}, spi.ErrAlreadyExists
	}
	return s.cs.Put(ctx, data)
}

// --- the owner is kept on put but ignored on get: any owner reads everything.
type ownerLeak struct{ cs }

func (s ownerLeak) GetFor(ctx context.Context, a spi.ContentAccess, digest string) ([]byte, error) {
	if b, err := s.cs.GetFor(ctx, a, digest); err == nil {
		return b, nil
	}
	return s.cs.Get(ctx, digest)
}

func (s ownerLeak) Get(ctx context.Context, digest string) ([]byte, error) {
	return s.GetFor(ctx, spi.ContentAccess{}, digest)
}

// ownerLeak also leaks unowned content to owners and owned content to the unowned: it looks up
// every owner it has seen.
type ownerLeakAll struct {
	cs
	mu     *sync.Mutex
	owners map[string]bool
}

func (s ownerLeakAll) PutFor(ctx context.Context, a spi.ContentAccess, data []byte) (spi.ContentRef, error) {
	s.mu.Lock()
	s.owners[a.Owner] = true
	s.mu.Unlock()
	return s.cs.PutFor(ctx, a, data)
}

func (s ownerLeakAll) GetFor(ctx context.Context, a spi.ContentAccess, digest string) ([]byte, error) {
	s.mu.Lock()
	var owners []string
	for o := range s.owners {
		owners = append(owners, o)
	}
	s.mu.Unlock()
	for _, o := range append([]string{a.Owner}, owners...) {
		if b, err := s.cs.GetFor(ctx, spi.ContentAccess{Owner: o}, digest); err == nil {
			return b, nil
		}
	}
	return s.cs.GetFor(ctx, a, digest)
}

// --- the owner argument is matched by prefix, so "alice" reads "alicex"'s content and back.
type ownerPrefix struct{ cs }

func (s ownerPrefix) GetFor(ctx context.Context, a spi.ContentAccess, digest string) ([]byte, error) {
	for _, o := range []string{a.Owner, a.Owner + "x", trimLast(a.Owner)} {
		if b, err := s.cs.GetFor(ctx, spi.ContentAccess{Owner: o}, digest); err == nil {
			return b, nil
		}
	}
	return s.cs.GetFor(ctx, a, digest)
}

func trimLast(s string) string {
	if s == "" {
		return s
	}
	return s[:len(s)-1]
}

// --- sealsContent answers differently from call to call.
type sealsFlaps struct {
	cs
	mu *sync.Mutex
	n  *int
}

func (s sealsFlaps) SealsContent(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*s.n++
	return *s.n%3 == 0, nil
}

// --- says it seals but takes no owner argument.
type sealsWithoutOwner struct{ plainContent }

func (s sealsWithoutOwner) SealsContent(ctx context.Context) (bool, error) { return true, nil }

// plainContent is a ContentStore without the owner argument.
type plainContent struct{ inner *memory.ContentStore }

func (p plainContent) Put(ctx context.Context, d []byte) (spi.ContentRef, error) {
	return p.inner.Put(ctx, d)
}
func (p plainContent) Get(ctx context.Context, d string) ([]byte, error) { return p.inner.Get(ctx, d) }
func (p plainContent) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return p.inner.PutStream(ctx, r)
}

// ContentStores are broken ContentStores, each with the check that must reject it.
func ContentStores() []Store[spi.ContentStore] {
	return []Store[spi.ContentStore]{
		{"partial-stream-visible", "a stream whose source fails leaves the bytes read so far visible under their digest", "contentstore/put-stream-failure", func() spi.ContentStore { return partialStreamVisible{newCS()} }},
		{"stream-swallows-error", "a source error is taken for the end of the stream and the prefix is committed with a ref", "contentstore/put-stream-failure", func() spi.ContentStore { return streamSwallowsError{newCS()} }},
		{"commits-after-cancel", "a cancelled stream reports the cancellation, then commits the content anyway (two outcomes)", "contentstore/put-stream-cancel", func() spi.ContentStore { return commitsAfterCancel{newCS()} }},
		{"wrong-digest", "refs name the content by md5, not sha256", "contentstore/put-get", func() spi.ContentStore { return wrongDigest{newCS()} }},
		{"truncates-large", "content above 64 KiB is cut to 64 KiB", "contentstore/put-get", func() spi.ContentStore {
			return truncatesLarge{truncStore{newCS(), &sync.Mutex{}, map[string][]byte{}}}
		}},
		{"empty-for-unknown", "get of a digest never put returns no bytes and no error", "contentstore/get-unknown", func() spi.ContentStore { return emptyForUnknown{newCS()} }},
		{"malformed-digest-not-found", "a malformed digest is looked up and not found instead of refused", "contentstore/get-unknown", func() spi.ContentStore { return malformedNotFound{newCS()} }},
		{"put-twice-refused", "putting stored bytes again is refused as already existing", "contentstore/put-idempotent", func() spi.ContentStore { return putTwiceRefused{newCS()} }},
		{"owner-leak", "content of any owner is readable through every access", "contentstore/owner-isolation", func() spi.ContentStore {
			return ownerLeakAll{newCS(), &sync.Mutex{}, map[string]bool{}}
		}},
		{"owner-unowned-fallback", "an owner's get falls back to content put without an owner, and the unowned read everyone's", "contentstore/owner-isolation", func() spi.ContentStore { return ownerLeak{newCS()} }},
		{"owner-prefix", "owners are matched by prefix, so one owner reads the content of an owner extending its name", "contentstore/owner-isolation", func() spi.ContentStore { return ownerPrefix{newCS()} }},
		{"seals-flaps", "sealsContent answers differently from call to call", "contentstore/seals-content", func() spi.ContentStore { n := 0; return sealsFlaps{newCS(), &sync.Mutex{}, &n} }},
		{"seals-without-owner", "sealsContent says true but the store takes no owner argument", "contentstore/seals-content", func() spi.ContentStore {
			return sealsWithoutOwner{plainContent{memory.NewContentStore()}}
		}},
	}
}
