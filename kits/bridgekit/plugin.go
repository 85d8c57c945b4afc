package bridgekit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

type namedCall struct {
	name string
	do   func() error
}

// pluginCalls are harmless calls of every plugin-tier wire method, for bridge/declared-methods-answer.
func pluginCalls(ctx context.Context, c *Case, x string) []namedCall {
	var calls []namedCall
	if cs := c.Store.ContentStore(); cs != nil {
		data := []byte(x + " probe")
		calls = append(calls,
			namedCall{"contentStore.put", func() error { _, err := cs.Put(ctx, data); return err }},
			namedCall{"contentStore.get", func() error { _, err := cs.Get(ctx, spi.DigestOf(data)); return err }},
			namedCall{"contentStore.streamOpen", func() error {
				var open struct {
					StreamID string `json:"streamId"`
				}
				if err := c.Store.Call(ctx, "contentStore.streamOpen", map[string]any{}, &open); err != nil {
					return err
				}
				return c.Store.Call(ctx, "contentStore.streamAbort", map[string]any{"streamId": open.StreamID}, nil)
			}},
			namedCall{"contentStore.sealsContent", func() error { _, err := cs.SealsContent(ctx); return err }},
		)
	}
	if ds := c.Store.DurableStateStore(); ds != nil {
		calls = append(calls,
			namedCall{"durableStateStore.set", func() error {
				_, err := ds.Set(ctx, x, json.RawMessage(`{"probe":true}`), spi.Precondition{})
				return err
			}},
			namedCall{"durableStateStore.get", func() error { _, err := ds.Get(ctx, x); return err }},
			namedCall{"durableStateStore.delete", func() error { return ds.Delete(ctx, x, spi.Precondition{}) }},
		)
	}
	if rm := c.Store.ReadModelStore(); rm != nil {
		calls = append(calls,
			namedCall{"readModelStore.upsert", func() error { return rm.Upsert(ctx, x, "probe", json.RawMessage(`{}`)) }},
			namedCall{"readModelStore.query", func() error { _, err := rm.Query(ctx, x, spi.ReadModelQuery{Limit: 1}); return err }},
		)
	}
	return calls
}

// pluginErrorCodes: a durable-state conflict, a key or digest never written and a malformed
// argument of every plugin seam arrive as -32001, -32003 and -32005 (or -32602) (I-BRIDGE-3).
func pluginErrorCodes(ctx context.Context, c *Case) error {
	if ds := c.Store.DurableStateStore(); ds != nil {
		k := c.ExecID("codes-state")
		_, err := ds.Get(ctx, k)
		if err := wantCode(c, "durableStateStore.get", fmt.Sprintf("%q (never set)", k), err, bridge.CodeNotFound); err != nil {
			return err
		}
		if err := wantCode(c, "durableStateStore.set", fmt.Sprintf("%q, ifVersion 7 (the key is absent)", k),
			callErr(ds.Set(ctx, k, json.RawMessage(`1`), spi.IfVersion(7))), bridge.CodeConflict); err != nil {
			return err
		}
		if err := wantCode(c, "durableStateStore.set", `"" (empty key)`, callErr(ds.Set(ctx, "", json.RawMessage(`1`), spi.Precondition{})), invalidCodes...); err != nil {
			return err
		}
	}
	if cs := c.Store.ContentStore(); cs != nil {
		never := spi.DigestOf([]byte(c.ExecID("codes-content")))
		_, err := cs.Get(ctx, never)
		if err := wantCode(c, "contentStore.get", "a digest never put", err, bridge.CodeNotFound); err != nil {
			return err
		}
		_, err = cs.Get(ctx, "md5:00")
		if err := wantCode(c, "contentStore.get", `"md5:00" (malformed)`, err, invalidCodes...); err != nil {
			return err
		}
	}
	if rm := c.Store.ReadModelStore(); rm != nil {
		_, err := rm.Query(ctx, c.ExecID("codes-model"), spi.ReadModelQuery{Limit: 0})
		if err := wantCode(c, "readModelStore.query", "limit 0", err, invalidCodes...); err != nil {
			return err
		}
	}
	return nil
}

// bkPluginWire checks the wire forms the Go API cannot express: the chunked stream's visibility
// and offset discipline, and limits that are not integers.
func bkPluginWire(ctx context.Context, c *Case) error {
	hs := c.Store.Handshake()
	stream, query := hs.Declares(manifest.SeamContentStore, spi.MethodPutStream), hs.Declares(manifest.SeamReadModelStore, spi.MethodQuery)
	if !stream && !query {
		return c.Skip("the bridge serves neither ContentStore.putStream nor ReadModelStore.query, the two plugin wire forms")
	}
	if stream {
		if err := bkStreamForm(ctx, c); err != nil {
			return err
		}
	}
	if query {
		m := c.ExecID("limits")
		for _, limit := range []string{`2.5`, `"10"`, `1e400`, `null`, `true`} {
			raw := json.RawMessage(`{"model":` + quote(m) + `,"limit":` + limit + `}`)
			_, err := c.Store.CallRaw(ctx, "readModelStore.query", raw)
			if e := wantCode(c, "readModelStore.query", "limit "+limit, err, bridge.CodeInvalidParams, bridge.CodeInvalidArgument); e != nil {
				return e
			}
		}
	}
	return nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func bkStreamForm(ctx context.Context, c *Case) error {
	cs := c.Store.ContentStore()
	data := []byte(c.ExecID("stream") + " two chunks of a streamed blob")
	half := len(data) / 2
	var open struct {
		StreamID string `json:"streamId"`
	}
	if err := c.Store.Call(ctx, "contentStore.streamOpen", map[string]any{}, &open); err != nil {
		if perr := protocolBreach(c, "contentStore.streamOpen", err); perr != nil {
			return perr
		}
		return c.Failf("contentStore.streamOpen", "{}", err, "a stream id")
	}
	id := open.StreamID
	write := func(off int, chunk []byte) error {
		return c.Store.Call(ctx, "contentStore.streamWrite", map[string]any{"streamId": id, "offset": off, "data": chunk}, nil)
	}
	if err := write(0, data[:half]); err != nil {
		return c.Failf("contentStore.streamWrite", "offset 0", err, "nil")
	}
	if got, err := cs.Get(ctx, spi.DigestOf(data[:half])); err == nil {
		return c.Failf("contentStore.get", "the first chunk of an uncommitted stream", fmt.Sprintf("%d bytes", len(got)), "not found")
	}
	if e := wantCode(c, "contentStore.streamWrite", fmt.Sprintf("offset 1 after %d bytes", half), write(1, data[half:]), bridge.CodeInvalidArgument, bridge.CodeInvalidParams); e != nil {
		return e
	}
	if err := write(half, data[half:]); err != nil {
		return c.Failf("contentStore.streamWrite", fmt.Sprintf("offset %d", half), err, "nil")
	}
	if got, err := cs.Get(ctx, spi.DigestOf(data)); err == nil {
		return c.Failf("contentStore.get", "a fully written but uncommitted stream", fmt.Sprintf("%d bytes", len(got)), "not found")
	}
	var ref spi.ContentRef
	if err := c.Store.Call(ctx, "contentStore.streamCommit", map[string]any{"streamId": id, "size": len(data)}, &ref); err != nil {
		return c.Failf("contentStore.streamCommit", fmt.Sprintf("size %d", len(data)), err, "the ref")
	}
	if ref != spi.RefOf(data) {
		return c.Failf("contentStore.streamCommit", fmt.Sprintf("size %d", len(data)), fmt.Sprintf("%+v", ref), fmt.Sprintf("%+v", spi.RefOf(data)))
	}
	if got, err := cs.Get(ctx, ref.Digest); err != nil || string(got) != string(data) {
		return c.Failf("contentStore.get", "a committed stream", gotBytes(got, err), "the bytes streamed")
	}
	// A finished stream takes no more chunks; aborting it, or a stream never opened, is a no-op.
	if e := wantCode(c, "contentStore.streamWrite", "a committed stream", write(len(data), []byte("more")), bridge.CodeInvalidArgument, bridge.CodeInvalidParams); e != nil {
		return e
	}
	for _, sid := range []string{id, c.ExecID("never-opened")} {
		if err := c.Store.Call(ctx, "contentStore.streamAbort", map[string]any{"streamId": sid}, nil); err != nil {
			if perr := protocolBreach(c, "contentStore.streamAbort", err); perr != nil {
				return perr
			}
			return c.Failf("contentStore.streamAbort", fmt.Sprintf("%q (committed or never opened)", sid), err, "null (a no-op)")
		}
	}
	if got, err := cs.Get(ctx, ref.Digest); err != nil || string(got) != string(data) {
		return c.Failf("contentStore.get", "a committed stream, after a streamAbort of it", gotBytes(got, err), "the bytes streamed")
	}
	// A commit whose size disagrees aborts: nothing becomes visible.
	other := []byte(c.ExecID("short") + " never visible")
	if err := c.Store.Call(ctx, "contentStore.streamOpen", map[string]any{}, &open); err != nil {
		return c.Failf("contentStore.streamOpen", "{}", err, "a stream id")
	}
	id = open.StreamID
	if err := write(0, other); err != nil {
		return c.Failf("contentStore.streamWrite", "offset 0", err, "nil")
	}
	err := c.Store.Call(ctx, "contentStore.streamCommit", map[string]any{"streamId": id, "size": len(other) + 1}, &ref)
	if e := wantCode(c, "contentStore.streamCommit", fmt.Sprintf("size %d after %d bytes", len(other)+1, len(other)), err, bridge.CodeInvalidArgument, bridge.CodeInvalidParams); e != nil {
		return e
	}
	if got, err := cs.Get(ctx, spi.DigestOf(other)); err == nil {
		return c.Failf("contentStore.get", "a stream whose commit was refused", fmt.Sprintf("%d bytes", len(got)), "not found")
	}
	_ = c.Store.Call(ctx, "contentStore.streamAbort", map[string]any{"streamId": id}, nil)
	return bkStreamAborted(ctx, c)
}

// bkStreamAborted: a stream aborted is over: it takes no more chunks, its commit is refused, and
// nothing of it ever becomes visible (I-PLUGIN-11) — a bridge whose abort only answers, keeping
// the stream open, lets a writer that lost its source commit it after all.
func bkStreamAborted(ctx context.Context, c *Case) error {
	cs := c.Store.ContentStore()
	data := []byte(c.ExecID("aborted") + " a stream aborted after its first chunk")
	var open struct {
		StreamID string `json:"streamId"`
	}
	if err := c.Store.Call(ctx, "contentStore.streamOpen", map[string]any{}, &open); err != nil {
		return c.Failf("contentStore.streamOpen", "{}", err, "a stream id")
	}
	id := open.StreamID
	if err := c.Store.Call(ctx, "contentStore.streamWrite", map[string]any{"streamId": id, "offset": 0, "data": data}, nil); err != nil {
		return c.Failf("contentStore.streamWrite", "offset 0", err, "nil")
	}
	if err := c.Store.Call(ctx, "contentStore.streamAbort", map[string]any{"streamId": id}, nil); err != nil {
		if perr := protocolBreach(c, "contentStore.streamAbort", err); perr != nil {
			return perr
		}
		return c.Failf("contentStore.streamAbort", fmt.Sprintf("%q (open, %d bytes written)", id, len(data)), err, "null")
	}
	more := c.Store.Call(ctx, "contentStore.streamWrite", map[string]any{"streamId": id, "offset": len(data), "data": []byte("more")}, nil)
	if e := wantCode(c, "contentStore.streamWrite", fmt.Sprintf("offset %d) after (streamAbort", len(data)), more, bridge.CodeInvalidArgument, bridge.CodeInvalidParams); e != nil {
		return e
	}
	var ref spi.ContentRef
	err := c.Store.Call(ctx, "contentStore.streamCommit", map[string]any{"streamId": id, "size": len(data)}, &ref)
	if e := wantCode(c, "contentStore.streamCommit", fmt.Sprintf("size %d) after (streamAbort", len(data)), err, bridge.CodeInvalidArgument, bridge.CodeInvalidParams); e != nil {
		return e
	}
	if got, err := cs.Get(ctx, spi.DigestOf(data)); err == nil {
		return c.Failf("contentStore.get", "an aborted stream's content, after a commit of it", fmt.Sprintf("%d bytes", len(got)), "not found")
	}
	return nil
}

func gotBytes(b []byte, err error) any {
	if err != nil {
		return err
	}
	return fmt.Sprintf("%d bytes", len(b))
}
