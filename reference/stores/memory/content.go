package memory

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// ContentStore is the in-memory ContentStore, with the owner argument. It does not seal.
type ContentStore struct {
	mu      sync.Mutex
	content map[contentKey][]byte
}

type contentKey struct{ owner, digest string }

// NewContentStore returns an empty ContentStore.
func NewContentStore() *ContentStore { return &ContentStore{content: map[contentKey][]byte{}} }

// ContentStoreSpiVersion claims the current ContentStore SPI.
func (s *ContentStore) ContentStoreSpiVersion() string { return manifest.ContentStoreSpiVersion }

// Put implements spi.ContentStore.
func (s *ContentStore) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	return s.PutFor(ctx, spi.ContentAccess{}, data)
}

// Get implements spi.ContentStore.
func (s *ContentStore) Get(ctx context.Context, digest string) ([]byte, error) {
	return s.GetFor(ctx, spi.ContentAccess{}, digest)
}

// PutStream implements spi.ContentStore.
func (s *ContentStore) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return s.PutStreamFor(ctx, spi.ContentAccess{}, r)
}

// PutFor implements spi.OwnedContentStore.
func (s *ContentStore) PutFor(ctx context.Context, a spi.ContentAccess, data []byte) (spi.ContentRef, error) {
	if err := ctx.Err(); err != nil {
		return spi.ContentRef{}, err
	}
	ref := spi.RefOf(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	k := contentKey{a.Owner, ref.Digest}
	if _, ok := s.content[k]; !ok {
		s.content[k] = bytes.Clone(data)
	}
	return ref, nil
}

// GetFor implements spi.OwnedContentStore.
func (s *ContentStore) GetFor(ctx context.Context, a spi.ContentAccess, digest string) ([]byte, error) {
	if err := spi.ValidateDigest("get", digest); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.content[contentKey{a.Owner, digest}]
	if !ok {
		return nil, spi.ErrNotFound
	}
	return bytes.Clone(b), nil
}

// PutStreamFor implements spi.OwnedContentStore: the stream is buffered and committed only after
// io.EOF with ctx still live, so a failed or cancelled stream leaves nothing.
func (s *ContentStore) PutStreamFor(ctx context.Context, a spi.ContentAccess, r io.Reader) (spi.ContentRef, error) {
	data, err := spi.ReadContent(ctx, r)
	if err != nil {
		return spi.ContentRef{}, err
	}
	return s.PutFor(ctx, a, data)
}
