package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

// Bounds of the chunked putStream form (docs/bridge.md, "Streams").
const (
	// MaxOpenStreams is how many streams a server keeps open at once; streamOpen beyond it is -32005.
	MaxOpenStreams = 256
	// StreamIdleTimeout is how long an open stream may go without a call before the server aborts it.
	StreamIdleTimeout = 2 * time.Minute
	// DefaultMaxStreamBytes bounds one stream (ServerOptions.MaxStreamBytes); a streamWrite past
	// it is -32008 and aborts the stream.
	DefaultMaxStreamBytes = 256 << 20
)

// errStreamTooLarge is the -32008 a stream past MaxStreamBytes gets.
type tooLargeError struct{ max int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("the stream exceeds %d bytes, the bridge's limit; it is aborted", e.max)
}

// streams holds the open chunked putStream calls of a server. Each open stream is one
// store.PutStream call reading from a pipe the chunks are written to; commit closes the pipe and
// waits for the store's answer, abort (or idleness) closes it with an error, so the store sees a
// failed source and keeps nothing.
type streams struct {
	mu   sync.Mutex
	open map[string]*stream
	max  int64 // bytes per stream
}

type stream struct {
	mu      sync.Mutex // serialises calls on one stream
	w       *io.PipeWriter
	written int64
	done    chan struct{} // closed when the store's PutStream returned
	ref     spi.ContentRef
	err     error
	cancel  context.CancelFunc
	idle    *time.Timer
}

var errStreamAborted = errors.New("bridge: the stream was aborted before its commit")

func newStreamID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (ss *streams) get(id string) (*stream, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st, ok := ss.open[id]
	if !ok {
		return nil, spi.Invalid("putStream", "streamId", "%q is not an open stream (never opened, committed, aborted or idle for %s)", clipID(id), StreamIdleTimeout)
	}
	return st, nil
}

func clipID(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

func (ss *streams) drop(id string) {
	ss.mu.Lock()
	delete(ss.open, id)
	ss.mu.Unlock()
}

// abort ends a stream without a commit: the store's PutStream sees a failed source.
func (ss *streams) abort(id string, st *stream) {
	ss.drop(id)
	st.idle.Stop()
	_ = st.w.CloseWithError(errStreamAborted)
	st.cancel()
}

func (ss *streams) openStream(put func(ctx context.Context, r io.Reader) (spi.ContentRef, error)) (string, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.open) >= MaxOpenStreams {
		return "", spi.Invalid("putStream", "streamOpen", "%d streams are open, the bridge's limit", MaxOpenStreams)
	}
	r, w := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	st := &stream{w: w, done: make(chan struct{}), cancel: cancel}
	id := newStreamID()
	st.idle = time.AfterFunc(StreamIdleTimeout, func() { ss.abort(id, st) })
	ss.open[id] = st
	go func() {
		defer close(st.done)
		defer func() {
			if p := recover(); p != nil {
				st.err = fmt.Errorf("the store panicked: %v", p)
				_ = r.CloseWithError(st.err)
			}
		}()
		st.ref, st.err = put(ctx, r)
		_ = r.CloseWithError(errStreamAborted) // unblock writes after the store returned early
	}()
	return id, nil
}

func addContentStore(hs map[string]handler, cs spi.ContentStore, ss *streams) {
	owned, hasOwner := cs.(spi.OwnedContentStore)
	access := func(owner string) (spi.ContentAccess, error) {
		if owner != "" && !hasOwner {
			return spi.ContentAccess{}, spi.Invalid("contentStore", "owner", "this store takes no owner argument")
		}
		return spi.ContentAccess{Owner: owner}, nil
	}
	hs["contentStore.put"] = on(func(ctx context.Context, p contentPutParams) (any, error) {
		a, err := access(p.Owner)
		if err != nil {
			return nil, err
		}
		if p.Data == nil {
			p.Data = []byte{}
		}
		if hasOwner {
			return owned.PutFor(ctx, a, p.Data)
		}
		return cs.Put(ctx, p.Data)
	})
	hs["contentStore.get"] = on(func(ctx context.Context, p contentGetParams) (any, error) {
		a, err := access(p.Owner)
		if err != nil {
			return nil, err
		}
		var b []byte
		if hasOwner {
			b, err = owned.GetFor(ctx, a, p.Digest)
		} else {
			b, err = cs.Get(ctx, p.Digest)
		}
		if b == nil {
			b = []byte{}
		}
		return contentData{Data: b}, err
	})
	hs["contentStore.streamOpen"] = on(func(ctx context.Context, p streamOpenParams) (any, error) {
		a, err := access(p.Owner)
		if err != nil {
			return nil, err
		}
		id, err := ss.openStream(func(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
			if hasOwner {
				return owned.PutStreamFor(ctx, a, r)
			}
			return cs.PutStream(ctx, r)
		})
		return streamIDResult{StreamID: id}, err
	})
	hs["contentStore.streamWrite"] = on(func(ctx context.Context, p streamWriteParams) (any, error) {
		st, err := ss.get(p.StreamID)
		if err != nil {
			return nil, err
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		st.idle.Reset(StreamIdleTimeout)
		if p.Offset != st.written {
			return nil, spi.Invalid("streamWrite", "offset", "%d, but %d bytes were written", p.Offset, st.written)
		}
		if st.written+int64(len(p.Data)) > ss.max {
			ss.abort(p.StreamID, st)
			return nil, &tooLargeError{max: ss.max}
		}
		if _, err := st.w.Write(p.Data); err != nil {
			ss.abort(p.StreamID, st)
			<-st.done
			if st.err != nil {
				return nil, st.err
			}
			return nil, err
		}
		st.written += int64(len(p.Data))
		return nil, nil
	})
	hs["contentStore.streamCommit"] = on(func(ctx context.Context, p streamCommitParams) (any, error) {
		st, err := ss.get(p.StreamID)
		if err != nil {
			return nil, err
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		if p.Size != st.written {
			ss.abort(p.StreamID, st)
			return nil, spi.Invalid("streamCommit", "size", "%d, but %d bytes were written; the stream is aborted", p.Size, st.written)
		}
		ss.drop(p.StreamID)
		st.idle.Stop()
		_ = st.w.Close()
		<-st.done
		st.cancel()
		if st.err != nil {
			return nil, st.err
		}
		return st.ref, nil
	})
	hs["contentStore.streamAbort"] = on(func(ctx context.Context, p streamAbortParams) (any, error) {
		if st, err := ss.get(p.StreamID); err == nil {
			st.mu.Lock()
			ss.abort(p.StreamID, st)
			st.mu.Unlock()
			<-st.done
		}
		return nil, nil
	})
	if x, ok := cs.(spi.ContentSealer); ok {
		hs["contentStore.sealsContent"] = on(func(ctx context.Context, _ noParams) (any, error) {
			b, err := x.SealsContent(ctx)
			return sealsResult{Seals: b}, err
		})
	}
}

func addDurableStateStore(hs map[string]handler, ds spi.DurableStateStore) {
	hs["durableStateStore.get"] = on(func(ctx context.Context, p keyParams) (any, error) {
		return ds.Get(ctx, p.Key)
	})
	hs["durableStateStore.set"] = on(func(ctx context.Context, p stateSetParams) (any, error) {
		v, err := ds.Set(ctx, p.Key, p.Value, spi.Precondition{IfVersion: p.IfVersion})
		return versionResult{Version: v}, err
	})
	hs["durableStateStore.delete"] = on(func(ctx context.Context, p stateDeleteParams) (any, error) {
		return nil, ds.Delete(ctx, p.Key, spi.Precondition{IfVersion: p.IfVersion})
	})
}

func addReadModelStore(hs map[string]handler, rm spi.ReadModelStore) {
	hs["readModelStore.upsert"] = on(func(ctx context.Context, p upsertParams) (any, error) {
		return nil, rm.Upsert(ctx, p.Model, p.ID, p.Doc)
	})
	hs["readModelStore.query"] = on(func(ctx context.Context, p queryParams) (any, error) {
		pg, err := rm.Query(ctx, p.Model, spi.ReadModelQuery{Limit: p.Limit, Cursor: p.Cursor})
		if pg.Docs == nil {
			pg.Docs = []spi.ReadModelDoc{}
		}
		return pg, err
	})
}
