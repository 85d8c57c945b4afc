package broken

import (
	"context"
	"io"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

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

// --- owners pass through key before they name a partition.
type ownersRekeyed struct {
	cs
	key func(string) string
}

func (s ownersRekeyed) PutFor(ctx context.Context, a spi.ContentAccess, data []byte) (spi.ContentRef, error) {
	return s.cs.PutFor(ctx, spi.ContentAccess{Owner: s.key(a.Owner)}, data)
}

func (s ownersRekeyed) GetFor(ctx context.Context, a spi.ContentAccess, digest string) ([]byte, error) {
	return s.cs.GetFor(ctx, spi.ContentAccess{Owner: s.key(a.Owner)}, digest)
}

func (s ownersRekeyed) PutStreamFor(ctx context.Context, a spi.ContentAccess, r io.Reader) (spi.ContentRef, error) {
	return s.cs.PutStreamFor(ctx, spi.ContentAccess{Owner: s.key(a.Owner)}, r)
}

// --- putStreamFor keys its owner lower-cased; putFor and getFor do not.
type streamOwnerFolded struct{ cs }

func (s streamOwnerFolded) PutStreamFor(ctx context.Context, a spi.ContentAccess, r io.Reader) (spi.ContentRef, error) {
	return s.cs.PutStreamFor(ctx, spi.ContentAccess{Owner: strings.ToLower(a.Owner)}, r)
}
