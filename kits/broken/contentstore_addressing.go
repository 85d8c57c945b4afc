package broken

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

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

// --- JSON content is stored re-encoded under the digest of the bytes put.
type jsonContentNormalised struct {
	cs
	mu   *sync.Mutex
	json map[string][]byte
}

func (s jsonContentNormalised) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	ref, err := s.cs.Put(ctx, data)
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err == nil && json.Valid(data) && d.Decode(&v) == nil {
		enc, _ := json.Marshal(v)
		s.mu.Lock()
		s.json[ref.Digest] = enc
		s.mu.Unlock()
	}
	return ref, err
}

func (s jsonContentNormalised) Get(ctx context.Context, digest string) ([]byte, error) {
	s.mu.Lock()
	enc, ok := s.json[digest]
	s.mu.Unlock()
	if ok {
		return bytes.Clone(enc), nil
	}
	return s.cs.Get(ctx, digest)
}

func (s jsonContentNormalised) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return putRead(ctx, r, s.Put)
}

// --- put is a lookup, then an insert under a unique key: sequential re-puts find the content,
// racing ones collide.
type putRaceRefused struct {
	contentTable
	pace pace // how the window opens (see gap)
}

func (s putRaceRefused) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	ref := spi.RefOf(data)
	s.mu.Lock()
	_, ok := s.content[ref.Digest]
	s.mu.Unlock()
	if ok {
		return ref, nil
	}
	gap(s.pace, yield)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.content[ref.Digest]; ok {
		return spi.ContentRef{}, spi.ErrAlreadyExists
	}
	s.content[ref.Digest] = bytes.Clone(data)
	return ref, nil
}

func (s putRaceRefused) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return putRead(ctx, r, s.Put)
}

// --- getFor looks the owner's content up before it validates the digest, so a malformed digest
// asked for through an owner's access is not found.
type ownerBeforeDigest struct{ cs }

func (s ownerBeforeDigest) GetFor(ctx context.Context, a spi.ContentAccess, digest string) ([]byte, error) {
	if a.Owner != "" && spi.ValidateDigest("get", digest) != nil {
		return nil, spi.ErrNotFound
	}
	return s.cs.GetFor(ctx, a, digest)
}
