package carrier

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/internal/jsonstrict"
	"github.com/loom-kernel/loom-conform/internal/safehttp"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// ContentTypeStream is the media type of the streaming form of a channel syscall (docs/wire.md):
// newline-delimited JSON, the request object on the first line, one chunk payload per line after.
const ContentTypeStream = "application/x-ndjson"

// MaxStreamLineBytes bounds one line of the streaming form (the request object or a chunk): a
// stream holds one line at a time, so this is what it holds of the server's request budget, and
// many long-lived streams fit at once.
const MaxStreamLineBytes = 1 << 20

// guard is who may call a carrier over HTTP (the policy) and how many request bytes it holds at
// once (the budget).
type guard struct {
	policy safehttp.Policy
	budget *safehttp.Budget
}

func newGuard(opts Options) (guard, error) {
	if err := safehttp.CheckToken(opts.Token); err != nil {
		return guard{}, fmt.Errorf("carrier: %w", err)
	}
	return guard{
		policy: safehttp.Policy{Token: opts.Token, AllowedHosts: opts.AllowedHosts, ContentTypes: []string{"application/json", ContentTypeStream}},
		budget: safehttp.NewBudget(4*opts.MaxRequestBytes, opts.MaxRequestBytes),
	}, nil
}

// ServeHTTP answers the wire ABI over HTTP POST: one JSON-RPC 2.0 request per body
// (application/json), or a channel syscall in its streaming form (application/x-ndjson).
// JSON-RPC errors travel with HTTP status 200; a request the policy refuses (Host, Origin, token,
// Content-Type: docs/wire.md, "Running it safely") gets a plain-text 403, 401 or 415.
func (c *Carrier) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "the kernel wire ABI answers JSON-RPC 2.0 over POST (docs/wire.md)", http.StatusMethodNotAllowed)
		return
	}
	if ref := c.guard.policy.Check(r); ref != nil {
		safehttp.Refuse(w, ref)
		return
	}
	stream := strings.HasPrefix(r.Header.Get("Content-Type"), ContentTypeStream)
	held := int64(0)
	if stream {
		held = MaxStreamLineBytes
	}
	release, err := c.guard.budget.Reserve(r, held)
	if err != nil {
		return // the client left while it waited
	}
	defer release()
	body := http.MaxBytesReader(w, r.Body, c.opts.MaxRequestBytes)
	if stream {
		c.serveStream(w, r, body)
		return
	}
	b, err := readBody(body, r.ContentLength)
	if err != nil {
		writeJSON(w, Response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: readError(err, c.opts.MaxRequestBytes)})
		return
	}
	writeJSON(w, c.HandleBytes(r.Context(), b))
}

// Delayed serves h, answering every request d later (before h reads it): a slow kernel, as a
// server in a slower language is, for stability runs (serve-kernel --delay). A client that leaves
// while it waits is not served.
func Delayed(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			h.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	})
}

// readBody reads a request or response body: in one buffer of its declared length when it has
// one (up to 1 MiB; beyond, and without one, as it comes), so a small body costs one allocation.
func readBody(body io.Reader, length int64) ([]byte, error) {
	if length <= 0 || length > 1<<20 {
		return io.ReadAll(body)
	}
	b := make([]byte, length)
	if _, err := io.ReadFull(body, b); err != nil {
		return nil, err
	}
	return b, nil
}

// HandleBytes decodes one request body and answers it: DecodeRequest, then HandleRPC.
func (c *Carrier) HandleBytes(ctx context.Context, body []byte) Response {
	req, e := DecodeRequest(body)
	if e != nil {
		id := req.ID
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		return Response{JSONRPC: "2.0", ID: id, Error: e}
	}
	return c.HandleRPC(ctx, req)
}

func readError(err error, limit int64) *bridge.RPCError {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return rpcErr(CodeTooLarge, "too-large", fmt.Sprintf("request exceeds %d bytes", limit), "limit", limit)
	}
	return rpcErr(CodeParseError, "parse", "reading the request: "+err.Error())
}

func writeJSON(w http.ResponseWriter, resp Response) {
	out, ok := appendResult(make([]byte, 0, len(resp.ID)+len(resp.Result)+32), resp)
	if !ok {
		out, _ = json.Marshal(resp)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// appendResult appends the frame of a result response whose id is JSON text as it stands (a
// number, or a string with no character json.Marshal escapes for HTML) — byte for byte what
// json.Marshal makes of it, the result being json.Marshal's output (compact, escaped) already.
// It reports false for any other response.
func appendResult(b []byte, resp Response) ([]byte, bool) {
	if resp.Error != nil || len(resp.Result) == 0 || resp.JSONRPC != "2.0" || len(resp.ID) == 0 || bytes.ContainsAny(resp.ID, "<>&\u2028\u2029 \t\r\n") {
		return b, false
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, resp.ID...)
	b = append(b, `,"result":`...)
	b = append(b, resp.Result...)
	return append(b, '}'), true
}

// Ack is one line of a streaming answer: chunk i was appended (or refused, with the error).
type Ack struct {
	Chunk int              `json:"chunk"`
	Error *bridge.RPCError `json:"error,omitempty"`
}

// HandleStream answers a channel syscall in its streaming form: req names the syscall and carries
// {executionId, driver, args: {eventType}}; next yields chunk payloads until io.EOF, each made as
// one call of the syscall with {eventType, payload: chunk}; ack is told of each as it lands. The
// request (its params and the driver's token) is judged before any chunk is read, so a refused
// request acknowledges nothing. The final response counts the chunks. The first refused chunk —
// one the kernel refuses, or one that is not a JSON value the wire takes (I-NET-5) — is answered
// with its own line, {"chunk": i, "error": E}, and ends the stream: the response is then the
// error E, and nothing of that chunk or after it is appended.
func (c *Carrier) HandleStream(ctx context.Context, req Request, next func() (json.RawMessage, error), ack func(Ack) error) Response {
	resp := Response{JSONRPC: "2.0", ID: req.ID}
	m, ok := c.methods[req.Method]
	if !ok || m.Kind != "channel" {
		resp.Error = rpcErr(CodeMethodNotFound, "method", fmt.Sprintf("method %q has no streaming form: only channel syscalls stream", req.Method), "method", req.Method)
		return resp
	}
	p, err := decodeSyscallParams(req.Params)
	if err != nil {
		resp.Error = invalid(req.Method, err)
		return resp
	}
	var a struct {
		EventType string `json:"eventType"`
	}
	if err := decodeStrict(p.Args, &a); err != nil || a.EventType == "" {
		resp.Error = rpcErr(CodeInvalidParams, "params", req.Method+": the streaming form takes params.args {eventType} and the chunks as lines", "field", "args.eventType")
		return resp
	}
	s, e := c.driven(ctx, req.Method, p.ExecutionID, p.Driver)
	if e != nil {
		resp.Error = e
		return resp
	}
	n := 0
	for {
		chunk, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			e := chunkError(req.Method, n, err)
			if c.opts.Hooks.BareChunkError {
				resp.Error = rpcErr(CodeParseError, "chunk", fmt.Sprintf("chunk %d: %v", n, err), "chunk", n)
				return resp
			}
			_ = ack(Ack{Chunk: n, Error: e})
			resp.Error = e
			return resp
		}
		args, _ := json.Marshal(map[string]any{"eventType": a.EventType, "payload": chunk})
		_, e := c.do(s, m.Syscall, args, nil)
		if e != nil {
			_ = ack(Ack{Chunk: n, Error: e})
			resp.Error = e
			return resp
		}
		if err := ack(Ack{Chunk: n}); err != nil {
			resp.Error = rpcErr(CodeInternalError, "transport", err.Error())
			return resp
		}
		n++
	}
	resp.Result, _ = json.Marshal(map[string]any{"chunks": n})
	return resp
}

// chunkError is the refusal of chunk n that could not be read: not JSON (-32700, kind parse), a
// value the wire does not take (-32602, kind utf8, duplicate-key or number, data.field its path as
// the call's args.payload) or a line or body past its limit (-32008, kind too-large).
func chunkError(method string, n int, err error) *bridge.RPCError {
	var se *jsonstrict.Error
	var tl *tooLarge
	switch {
	case errors.As(err, &tl):
		return rpcErr(CodeTooLarge, "too-large", fmt.Sprintf("%s: chunk %d: %v", method, n, err), "chunk", n, "limit", tl.limit)
	case errors.As(err, &se) && se.Kind != jsonstrict.Syntax && se.Kind != jsonstrict.TooDeep:
		field := "args.payload"
		if se.Path != "" && se.Path[0] != '[' {
			field += "."
		}
		field += se.Path
		return rpcErr(CodeInvalidParams, string(se.Kind), fmt.Sprintf("%s: chunk %d: %v", method, n, err), "chunk", n, "field", field)
	case errors.As(err, &se) && se.Kind == jsonstrict.TooDeep:
		return rpcErr(CodeTooLarge, "depth", fmt.Sprintf("%s: chunk %d: %v", method, n, err), "chunk", n, "limit", se.Limit)
	}
	return rpcErr(CodeParseError, "parse", fmt.Sprintf("%s: chunk %d is not JSON: %v", method, n, err), "chunk", n)
}

// tooLarge is a stream that passed a limit: a line, or the whole body.
type tooLarge struct {
	what  string
	limit int64
}

func (e *tooLarge) Error() string { return fmt.Sprintf("%s exceeds %d bytes", e.what, e.limit) }

func (c *Carrier) serveStream(w http.ResponseWriter, r *http.Request, body io.Reader) {
	rc := http.NewResponseController(w)
	_ = rc.EnableFullDuplex()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), int(min(c.opts.MaxRequestBytes, MaxStreamLineBytes)))
	w.Header().Set("Content-Type", ContentTypeStream)
	// a stream may end before its body does (a refused chunk, a line past the limit): the
	// connection is not reused, so the server never reads a next request from a half-read body
	w.Header().Set("Connection", "close")
	enc := func(v any) error {
		b, _ := json.Marshal(v)
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
		return rc.Flush()
	}
	if !sc.Scan() {
		_ = enc(Response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: rpcErr(CodeInvalidRequest, "request", "the streaming form starts with the request object on its first line")})
		return
	}
	req, e := DecodeRequest(sc.Bytes())
	if e != nil {
		_ = enc(Response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: e})
		return
	}
	next := func() (json.RawMessage, error) {
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			if err := jsonstrict.Check(line, jsonstrict.Options{ExactDoubles: true}); err != nil {
				return nil, err
			}
			return append(json.RawMessage(nil), line...), nil
		}
		if err := sc.Err(); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, &tooLarge{"the request", c.opts.MaxRequestBytes}
			}
			if errors.Is(err, bufio.ErrTooLong) {
				return nil, &tooLarge{"a line (the streaming form's limit)", MaxStreamLineBytes}
			}
			return nil, err
		}
		return nil, io.EOF
	}
	resp := c.HandleStream(r.Context(), req, next, func(a Ack) error { return enc(a) })
	_ = enc(resp)
}
