package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// StreamChunkBytes is the most a client sends in one contentStore.streamWrite.
const StreamChunkBytes = 1 << 20

// ContentStore returns the bridge's ContentStore, or nil when it is not served.
func (c *Client) ContentStore() *ContentStore {
	if !c.serves(manifest.SeamContentStore) {
		return nil
	}
	return &ContentStore{c: c}
}

// DurableStateStore returns the bridge's DurableStateStore, or nil when it is not served.
func (c *Client) DurableStateStore() *DurableStateStore {
	if !c.serves(manifest.SeamDurableStateStore) {
		return nil
	}
	return &DurableStateStore{c: c}
}

// ReadModelStore returns the bridge's ReadModelStore, or nil when it is not served.
func (c *Client) ReadModelStore() *ReadModelStore {
	if !c.serves(manifest.SeamReadModelStore) {
		return nil
	}
	return &ReadModelStore{c: c}
}

// ContentStore is the client side of the ContentStore seam. PutStream uses the chunked form
// (streamOpen, streamWrite…, streamCommit or streamAbort).
type ContentStore struct{ c *Client }

var (
	_ spi.ContentStore          = (*ContentStore)(nil)
	_ spi.OwnedContentStore     = (*ContentStore)(nil)
	_ spi.ContentSealer         = (*ContentStore)(nil)
	_ spi.Capabilities          = (*ContentStore)(nil)
	_ spi.ContentStoreVersioned = (*ContentStore)(nil)
)

// Implements reports whether the handshake declares the method.
func (s *ContentStore) Implements(method string) bool {
	return s.c.declares(manifest.SeamContentStore, method)
}

// ContentStoreSpiVersion is the version the handshake claims.
func (s *ContentStore) ContentStoreSpiVersion() string { return s.c.claimed(manifest.SeamContentStore) }

func (s *ContentStore) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	return s.put(ctx, "", data)
}

func (s *ContentStore) Get(ctx context.Context, digest string) ([]byte, error) {
	return s.get(ctx, "", digest)
}

func (s *ContentStore) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return s.putStream(ctx, "", r)
}

func (s *ContentStore) owner(a spi.ContentAccess) (string, error) {
	if a.Owner != "" && !s.Implements(spi.MethodOwner) {
		return "", unsupported("contentStore", spi.MethodOwner)
	}
	return a.Owner, nil
}

func (s *ContentStore) PutFor(ctx context.Context, a spi.ContentAccess, data []byte) (spi.ContentRef, error) {
	o, err := s.owner(a)
	if err != nil {
		return spi.ContentRef{}, err
	}
	return s.put(ctx, o, data)
}

func (s *ContentStore) GetFor(ctx context.Context, a spi.ContentAccess, digest string) ([]byte, error) {
	o, err := s.owner(a)
	if err != nil {
		return nil, err
	}
	return s.get(ctx, o, digest)
}

func (s *ContentStore) PutStreamFor(ctx context.Context, a spi.ContentAccess, r io.Reader) (spi.ContentRef, error) {
	o, err := s.owner(a)
	if err != nil {
		return spi.ContentRef{}, err
	}
	return s.putStream(ctx, o, r)
}

func (s *ContentStore) SealsContent(ctx context.Context) (bool, error) {
	if !s.Implements(spi.MethodSealsContent) {
		return false, unsupported("contentStore", spi.MethodSealsContent)
	}
	var out sealsResult
	err := s.c.Call(ctx, "contentStore.sealsContent", noParams{}, &out)
	return out.Seals, err
}

func (s *ContentStore) put(ctx context.Context, owner string, data []byte) (spi.ContentRef, error) {
	if data == nil {
		data = []byte{}
	}
	var ref spi.ContentRef
	err := s.c.Call(ctx, "contentStore.put", contentPutParams{Data: data, Owner: owner}, &ref)
	return ref, err
}

func (s *ContentStore) get(ctx context.Context, owner, digest string) ([]byte, error) {
	var out contentData
	if err := s.c.Call(ctx, "contentStore.get", contentGetParams{Digest: digest, Owner: owner}, &out); err != nil {
		return nil, err
	}
	if out.Data == nil {
		out.Data = []byte{}
	}
	return out.Data, nil
}

// putStream sends r in chunks. A failing source or an ended ctx aborts the stream (the server
// then keeps nothing). A commit whose answer is lost is resolved by asking for the content under
// the digest the client computed, so the caller still learns one outcome (docs/bridge.md).
func (s *ContentStore) putStream(ctx context.Context, owner string, r io.Reader) (spi.ContentRef, error) {
	var open streamIDResult
	if err := s.c.Call(ctx, "contentStore.streamOpen", streamOpenParams{Owner: owner}, &open); err != nil {
		return spi.ContentRef{}, err
	}
	abort := func(cause error) (spi.ContentRef, error) {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = s.c.Call(actx, "contentStore.streamAbort", streamAbortParams{StreamID: open.StreamID}, nil)
		return spi.ContentRef{}, cause
	}
	h := sha256.New()
	var off int64
	buf := make([]byte, StreamChunkBytes)
	for {
		if err := ctx.Err(); err != nil {
			return abort(err)
		}
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			if err := ctx.Err(); err != nil {
				return abort(err)
			}
			if err := s.c.Call(ctx, "contentStore.streamWrite", streamWriteParams{StreamID: open.StreamID, Offset: off, Data: buf[:n]}, nil); err != nil {
				return abort(err)
			}
			h.Write(buf[:n])
			off += int64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return abort(rerr)
		}
	}
	if err := ctx.Err(); err != nil {
		return abort(err)
	}
	var ref spi.ContentRef
	err := s.c.Call(ctx, "contentStore.streamCommit", streamCommitParams{StreamID: open.StreamID, Size: off}, &ref)
	if err == nil {
		return ref, nil
	}
	var re *RemoteError
	if errors.As(err, &re) {
		return spi.ContentRef{}, err // the server answered: the commit did not happen
	}
	// The answer was lost: the commit may or may not have happened. Ask.
	want := spi.ContentRef{Digest: "sha256:" + hex.EncodeToString(h.Sum(nil)), Size: off}
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, gerr := s.get(qctx, owner, want.Digest); gerr == nil {
		return want, nil
	}
	return abort(err)
}

// DurableStateStore is the client side of the DurableStateStore seam.
type DurableStateStore struct{ c *Client }

var (
	_ spi.DurableStateStore          = (*DurableStateStore)(nil)
	_ spi.Capabilities               = (*DurableStateStore)(nil)
	_ spi.DurableStateStoreVersioned = (*DurableStateStore)(nil)
)

// Implements reports whether the handshake declares the method.
func (s *DurableStateStore) Implements(method string) bool {
	return s.c.declares(manifest.SeamDurableStateStore, method)
}

// DurableStateStoreSpiVersion is the version the handshake claims.
func (s *DurableStateStore) DurableStateStoreSpiVersion() string {
	return s.c.claimed(manifest.SeamDurableStateStore)
}

func (s *DurableStateStore) Get(ctx context.Context, key string) (spi.StateEntry, error) {
	var out spi.StateEntry
	err := s.c.Call(ctx, "durableStateStore.get", keyParams{Key: key}, &out)
	return out, err
}

func (s *DurableStateStore) Set(ctx context.Context, key string, value json.RawMessage, pre spi.Precondition) (int64, error) {
	if len(value) == 0 || !json.Valid(value) {
		return 0, spi.Invalid("set", "value", "not valid JSON, so it cannot cross the bridge")
	}
	var out versionResult
	err := s.c.Call(ctx, "durableStateStore.set", stateSetParams{Key: key, Value: value, IfVersion: pre.IfVersion}, &out)
	return out.Version, err
}

func (s *DurableStateStore) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	return s.c.Call(ctx, "durableStateStore.delete", stateDeleteParams{Key: key, IfVersion: pre.IfVersion}, nil)
}

// ReadModelStore is the client side of the ReadModelStore seam.
type ReadModelStore struct{ c *Client }

var (
	_ spi.ReadModelStore          = (*ReadModelStore)(nil)
	_ spi.Capabilities            = (*ReadModelStore)(nil)
	_ spi.ReadModelStoreVersioned = (*ReadModelStore)(nil)
)

// Implements reports whether the handshake declares the method.
func (s *ReadModelStore) Implements(method string) bool {
	return s.c.declares(manifest.SeamReadModelStore, method)
}

// ReadModelStoreSpiVersion is the version the handshake claims.
func (s *ReadModelStore) ReadModelStoreSpiVersion() string {
	return s.c.claimed(manifest.SeamReadModelStore)
}

func (s *ReadModelStore) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if len(doc) == 0 || !json.Valid(doc) {
		return spi.Invalid("upsert", "doc", "not valid JSON, so it cannot cross the bridge")
	}
	return s.c.Call(ctx, "readModelStore.upsert", upsertParams{Model: model, ID: id, Doc: doc}, nil)
}

func (s *ReadModelStore) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	var out spi.ReadModelPage
	err := s.c.Call(ctx, "readModelStore.query", queryParams{Model: model, Limit: q.Limit, Cursor: q.Cursor}, &out)
	return out, err
}
