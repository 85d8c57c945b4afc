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
// stream holds the bytes of the line it is reading, at most this many, and gives them back once
// the line is answered, so an open stream waiting for its next chunk holds nothing.
const MaxStreamLineBytes = 1 << 20

// guard is who may call a carrier over HTTP (the policy), how many request bytes it holds at once
// — unary bodies and streams each in a budget of their own, so a stream never waits on unary calls
// nor they on streams — and how many large answers (execution.getState: the state and the log
// grow with the execution) it builds and holds at once, as the store bridge does.
type guard struct {
	policy  safehttp.Policy
	budget  *safehttp.Budget
	streams *safehttp.Budget
	answers *safehttp.Answers
}

func newGuard(opts Options) (guard, error) {
	if err := safehttp.CheckToken(opts.Token); err != nil {
		return guard{}, fmt.Errorf("carrier: %w", err)
	}
	return guard{
		policy:  safehttp.Policy{Token: opts.Token, AllowedHosts: opts.AllowedHosts, ContentTypes: []string{"application/json", ContentTypeStream}},
		budget:  safehttp.NewBudget(4*opts.MaxRequestBytes, 0),
		streams: safehttp.NewBudget(4*opts.MaxRequestBytes, 0),
		answers: safehttp.NewAnswers(bridge.DefaultMaxConcurrentReads, 2*opts.MaxRequestBytes, 0),
	}, nil
}

// ServeHTTP answers the wire ABI over HTTP POST: one JSON-RPC 2.0 request per body
// (application/json), or a channel syscall in its streaming form (application/x-ndjson).
// JSON-RPC errors travel with HTTP status 200; a request the policy refuses (Host, Origin, token,
// Content-Type: docs/wire.md, "Running it safely") gets a plain-text 403, 401 or 415, and one the
// server cannot take now (its budget is held by bodies that all wait for it) a 503.
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
	if safehttp.TooLarge(r, c.opts.MaxRequestBytes) {
		writeJSON(w, Response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: tooLargeError(fmt.Sprintf("the request declares %d bytes (Content-Length)", r.ContentLength), c.opts.MaxRequestBytes)})
		return
	}
	limited := http.MaxBytesReader(w, r.Body, c.opts.MaxRequestBytes)
	if strings.HasPrefix(r.Header.Get("Content-Type"), ContentTypeStream) {
		in := c.guard.streams.Body(w, r, limited)
		defer in.Release()
		c.serveStream(w, r, in)
		return
	}
	in := c.guard.budget.Body(w, r, limited)
	defer in.Release()
	b, err := safehttp.ReadBody(in, r.ContentLength)
	if err != nil {
		switch {
		case safehttp.Overloaded(err):
			safehttp.Busy(w, err)
		case r.Context().Err() != nil: // the client left while its body waited for the budget
		default:
			writeJSON(w, Response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: readError(err, c.opts.MaxRequestBytes)})
		}
		return
	}
	req, e := DecodeRequest(b)
	if e != nil {
		in.Release()
		writeJSON(w, refusal(req, e))
		return
	}
	if req.Method == MethodGetState {
		in.Release() // the request is decoded: its bytes are the answer's to hold now
		w.Header().Set("Content-Type", "application/json")
		_ = c.guard.answers.Serve(w, r, req.Method+"\x00"+string(req.Params), func(ctx context.Context) safehttp.Answer { return c.stateAnswer(ctx, req) })
		return
	}
	resp := c.HandleRPC(r.Context(), req)
	in.Release()
	writeJSON(w, resp)
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

// stateAnswer answers execution.getState: its log, when it has one, is encoded as it is written
// (bridge.Answer), so building the answer costs the store's read and the fold, not the log's text;
// the bytes are those of HandleRPC's response.
func (c *Carrier) stateAnswer(ctx context.Context, req Request) safehttp.Answer {
	result, e := c.handle(ctx, req)
	if st, ok := result.(StateResult); ok && len(st.Log) > 0 {
		log := st.Log
		st.Log = nil
		if obj, err := json.Marshal(st); err == nil {
			return bridge.Answer(req.ID, bridge.ObjectWithEnvelopes{Object: obj, Member: "log", Envelopes: log}, nil)
		}
	}
	resp := Response{JSONRPC: "2.0", ID: req.ID, Error: e}
	if e == nil {
		var err error
		if resp.Result, err = json.Marshal(result); err != nil {
			resp.Error = rpcErr(CodeInternalError, "internal", "encoding the result: "+err.Error())
		}
	}
	return encodedResponse(resp)
}

// HandleBytes decodes one request body and answers it: DecodeRequest, then HandleRPC.
func (c *Carrier) HandleBytes(ctx context.Context, body []byte) Response {
	req, e := DecodeRequest(body)
	if e != nil {
		return refusal(req, e)
	}
	return c.HandleRPC(ctx, req)
}

// refusal answers a request DecodeRequest refused: with its id only when a response may carry it
// (a string or a number that is itself strict, I-NET-5), else null — never an object or an array
// the client sent.
func refusal(req Request, e *bridge.RPCError) Response {
	id := req.ID
	if !bridge.AnswerableID(id) {
		id = json.RawMessage("null")
	}
	return Response{JSONRPC: "2.0", ID: id, Error: e}
}

func readError(err error, limit int64) *bridge.RPCError {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLargeError("the request is longer", limit)
	}
	return rpcErr(CodeParseError, "parse", "reading the request: "+err.Error())
}

// tooLargeError is the answer to a request past the limit: -32008, kind too-large, data.limit.
func tooLargeError(what string, limit int64) *bridge.RPCError {
	return rpcErr(CodeTooLarge, "too-large", fmt.Sprintf("%s than %d bytes, the kernel's limit (--max-request-bytes)", what, limit), "limit", limit)
}

func writeJSON(w http.ResponseWriter, resp Response) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(encodedResponse(resp))
}

// encodedResponse is resp's frame as it is written.
func encodedResponse(resp Response) answerBytes {
	out, ok := appendResult(make([]byte, 0, len(resp.ID)+len(resp.Result)+32), resp)
	if !ok {
		out, _ = json.Marshal(resp)
	}
	return out
}

// answerBytes is an answer encoded whole (a safehttp.Answer).
type answerBytes []byte

func (a answerBytes) Size() int64 { return int64(len(a)) }

func (a answerBytes) Write(w io.Writer) error {
	_, err := w.Write(a)
	return err
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

// serveStream answers the streaming form. Its bytes are charged to the stream budget as they
// arrive, and each line's are given back once the line is answered.
func (c *Carrier) serveStream(w http.ResponseWriter, r *http.Request, body *safehttp.Body) {
	rc := http.NewResponseController(w)
	_ = rc.EnableFullDuplex()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), int(min(c.opts.MaxRequestBytes, MaxStreamLineBytes)))
	var scanned int64 // the bytes of the lines scanned and not yet given back
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, atEOF)
		scanned += int64(adv)
		return adv, tok, err
	})
	giveBack := func() {
		if h := body.Hold(); h != nil {
			h.Give(scanned)
		}
		scanned = 0
	}
	w.Header().Set("Content-Type", ContentTypeStream)
	// The connection closes after the stream: one that ends early leaves bytes of the body unread,
	// which net/http would otherwise read to its end after the answer while it waits for the
	// connection's next request (and panic on, in full-duplex mode).
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
		giveBack() // the line before is answered (or is the request, decoded)
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
