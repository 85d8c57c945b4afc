package broken

import (
	"context"
	"io"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- content grows under its digest part by part, each part visible until a reader has looked.
// With rewrite, a put of stored content writes it again the same way (a file opened with O_TRUNC).
type contentInParts struct {
	contentTable
	w       window
	rewrite bool
}

func (s contentInParts) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	ref := spi.RefOf(data)
	s.mu.Lock()
	if _, ok := s.content[ref.Digest]; ok && !s.rewrite {
		s.mu.Unlock()
		return ref, nil
	}
	s.content[ref.Digest] = []byte{}
	s.mu.Unlock()
	const part = 64 << 10
	for off := 0; off < len(data); off += part {
		s.w.hold(ctx)
		s.mu.Lock()
		s.content[ref.Digest] = append(s.content[ref.Digest], data[off:min(off+part, len(data))]...)
		s.mu.Unlock()
	}
	return ref, nil
}

func (s contentInParts) Get(ctx context.Context, digest string) (b []byte, err error) {
	s.w.read(func() { b, err = s.contentTable.Get(ctx, digest) })
	return b, err
}

func (s contentInParts) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return putRead(ctx, r, s.Put)
}
