package spi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
)

// ContentRef names stored content: the digest of its bytes ("sha256:" and 64 lower-case hex
// digits) and its size in bytes. Content is addressed by what it is (I-PLUGIN-1).
type ContentRef struct {
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// ContentStore is the plugin-tier content seam (spec §7): large values kept out of the log and
// named by digest.
type ContentStore interface {
	// Put stores data and returns its ref. Putting bytes already stored returns the same ref.
	Put(ctx context.Context, data []byte) (ContentRef, error)
	// Get returns the bytes stored under digest, ErrNotFound when none are. Recommended
	// (I-PLUGIN-17, I-STORE-56): a digest not of the form sha256:<64 lower-case hex> is
	// ErrInvalidArgument, whoever asks.
	Get(ctx context.Context, digest string) ([]byte, error)
	// PutStream stores everything r yields until io.EOF and returns its ref. The outcome contract
	// (ADR 0059, I-PLUGIN-2): when r fails or ctx ends before the content is committed, PutStream
	// returns an error and no part of the content is, or ever becomes, visible; when it returns a
	// ref the whole content is visible. The caller learns exactly one of the two.
	PutStream(ctx context.Context, r io.Reader) (ContentRef, error)
}

// ContentAccess is the optional owner argument (ContentStore SPI 1.5.0, ADR 0143): content put for
// one owner is readable only through an access naming the same owner (I-PLUGIN-3).
type ContentAccess struct {
	Owner string `json:"owner"`
}

// OwnedContentStore is the optional owner argument of ContentStore (manifest name "owner"). The
// plain methods act for the empty owner: content put without an access is readable only without one.
type OwnedContentStore interface {
	PutFor(ctx context.Context, access ContentAccess, data []byte) (ContentRef, error)
	GetFor(ctx context.Context, access ContentAccess, digest string) ([]byte, error)
	PutStreamFor(ctx context.Context, access ContentAccess, r io.Reader) (ContentRef, error)
}

// ContentSealer is the optional sealsContent marker (ContentStore SPI 1.5.0, ADR 0143): true when
// the store seals (encrypts) content at rest. The answer is stable for the life of the store, and a
// store that seals also takes the owner argument (I-PLUGIN-4).
type ContentSealer interface {
	SealsContent(ctx context.Context) (bool, error)
}

// ContentStoreVersioned is how a ContentStore states the SPI version it claims.
type ContentStoreVersioned interface {
	ContentStoreSpiVersion() string
}

// DigestOf returns the content digest of data: "sha256:" and 64 lower-case hex digits.
func DigestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// RefOf returns the ContentRef of data.
func RefOf(data []byte) ContentRef { return ContentRef{Digest: DigestOf(data), Size: int64(len(data))} }

// ValidateDigest refuses a digest that is not sha256:<64 lower-case hex digits>.
func ValidateDigest(op, digest string) error {
	hexPart, ok := strings.CutPrefix(digest, "sha256:")
	if !ok || len(hexPart) != 64 {
		return Invalid(op, "digest", "%q is not sha256:<64 lower-case hex digits>", clip(digest))
	}
	for _, c := range hexPart {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return Invalid(op, "digest", "%q is not sha256:<64 lower-case hex digits>", clip(digest))
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// ReadContent reads r to io.EOF for a PutStream that commits only whole content: ctx is checked
// between reads, and the first error (the reader's or the context's) ends it with nothing kept.
func ReadContent(ctx context.Context, r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	chunk := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.Read(chunk)
		buf.Write(chunk[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
