package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/internal/jsonstrict"
	"github.com/loom-kernel/loom-conform/internal/safehttp"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// Stores are the stores a bridge serves. Nil seams are not served (absent from the handshake).
type Stores struct {
	Implementation Implementation
	EventStore     spi.EventStore
	SnapshotStore  spi.SnapshotStore
	ArchiveStore   spi.ArchiveStore
	BranchRegistry spi.BranchRegistry
	// Dispatcher is an ExecutionDispatcher (docs/spi.md §8), served beside or instead of stores.
	Dispatcher spi.ExecutionDispatcher
	// The plugin-tier seams.
	ContentStore      spi.ContentStore
	DurableStateStore spi.DurableStateStore
	ReadModelStore    spi.ReadModelStore
}

// ServerOptions bound what one call may cost and say who may call. Zero values take the defaults.
type ServerOptions struct {
	// MaxRequestBytes caps a request body (default 16 MiB); larger requests get error -32008.
	MaxRequestBytes int64
	// CallTimeout bounds each store call (default 30 s); past it the answer is error -32007.
	CallTimeout time.Duration
	// MaxStreamBytes bounds one chunked contentStore stream (default 256 MiB); a write past it is
	// error -32008 and aborts the stream.
	MaxStreamBytes int64
	// MaxInFlightBytes bounds the request bytes the server holds at once, counted as they arrive
	// (default 4 × MaxRequestBytes; safehttp.Budget): a body whose bytes do not fit waits, and a
	// body stalled on its client gives way. A body declaring at most safehttp.SmallBody bytes is
	// read without it (the connection cap bounds those).
	MaxInFlightBytes int64
	// MaxConcurrentReads bounds the calls whose answer can be large (whole-log reads, snapshot
	// loads, content gets) building their answer at once (default 4); the others wait, as long as
	// their client stays. The store's answer is then written as it is encoded, never built whole a
	// second time.
	MaxConcurrentReads int
	// MaxAnswerBytes bounds the large answers held at once while their clients read them (default
	// 2 × MaxRequestBytes; safehttp.Answers): a client that stalls reading one gives way to an
	// answer waiting for the room.
	MaxAnswerBytes int64
	// Token, when set, must come as "Authorization: Bearer <token>" on every request (401 otherwise).
	Token string
	// AllowedHosts are DNS names a request's Host may give besides IP literals and localhost.
	AllowedHosts []string
}

// Defaults of ServerOptions and ClientOptions.
const (
	DefaultMaxRequestBytes    = 16 << 20
	DefaultMaxResponseBytes   = 64 << 20
	DefaultCallTimeout        = 30 * time.Second
	DefaultMaxConcurrentReads = 4
)

func (o ServerOptions) withDefaults() ServerOptions {
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.MaxStreamBytes <= 0 {
		o.MaxStreamBytes = DefaultMaxStreamBytes
	}
	if o.MaxInFlightBytes <= 0 {
		o.MaxInFlightBytes = 4 * o.MaxRequestBytes
	}
	if o.MaxConcurrentReads <= 0 {
		o.MaxConcurrentReads = DefaultMaxConcurrentReads
	}
	if o.MaxAnswerBytes <= 0 {
		o.MaxAnswerBytes = 2 * o.MaxRequestBytes
	}
	return o
}

// Server answers the store bridge protocol over HTTP for a set of Go stores. It is an
// http.Handler; every path answers.
type Server struct {
	stores    Stores
	opts      ServerOptions
	schemas   *Schemas
	handshake Handshake
	handlers  map[string]handler
	streams   streams
	policy    safehttp.Policy
	budget    *safehttp.Budget  // request bytes held at once
	answers   *safehttp.Answers // large answers built and held at once
}

type handler func(ctx context.Context, params json.RawMessage) (any, error)

// NewServer builds a bridge server. The handshake declares, per served seam, the SPI version the
// store claims (the manifest's current version if it states none) and every method spi.Has finds.
func NewServer(st Stores, opts ServerOptions) (*Server, error) {
	schemas, err := CompileSchemas()
	if err != nil {
		return nil, err
	}
	if st.Implementation.Name == "" {
		st.Implementation.Name = "unnamed"
	}
	if st.Implementation.Version == "" {
		st.Implementation.Version = "0.0.0"
	}
	if err := safehttp.CheckToken(opts.Token); err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	opts = opts.withDefaults()
	s := &Server{stores: st, opts: opts, schemas: schemas,
		policy:  safehttp.Policy{Token: opts.Token, AllowedHosts: opts.AllowedHosts},
		budget:  safehttp.NewBudget(max(opts.MaxInFlightBytes, opts.MaxRequestBytes), 0),
		answers: safehttp.NewAnswers(opts.MaxConcurrentReads, opts.MaxAnswerBytes, 0)}
	s.handshake = Handshake{Protocol: ProtocolVersion, Implementation: st.Implementation, Seams: map[string]SeamSupport{}}
	for seam, store := range map[string]any{
		manifest.SeamEventStore: st.EventStore, manifest.SeamSnapshotStore: st.SnapshotStore,
		manifest.SeamArchiveStore: st.ArchiveStore, manifest.SeamBranchRegistry: st.BranchRegistry,
		manifest.SeamExecutionDispatcher: st.Dispatcher,
		manifest.SeamContentStore:        st.ContentStore, manifest.SeamDurableStateStore: st.DurableStateStore,
		manifest.SeamReadModelStore: st.ReadModelStore,
	} {
		if isNil(store) {
			continue
		}
		def, _ := manifest.LookupSpi(seam)
		v, ok := spi.ClaimedVersion(seam, store)
		if !ok {
			v = def.Version
		}
		sup := SeamSupport{SpiVersion: v, Methods: []string{}}
		for _, m := range def.Methods {
			if spi.Has(seam, store, m.Name) {
				sup.Methods = append(sup.Methods, m.Name)
			}
		}
		s.handshake.Seams[seam] = sup
	}
	if len(s.handshake.Seams) == 0 {
		return nil, errors.New("bridge: no store to serve")
	}
	s.handlers = s.buildHandlers()
	return s, nil
}

// isNil reports whether a seam field holds no store (a nil interface or a typed nil pointer).
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// Handshake returns what bridge.handshake answers.
func (s *Server) Handshake() Handshake { return s.handshake }

// ServeHTTP answers one JSON-RPC 2.0 request (POST). JSON-RPC errors travel with HTTP status 200;
// a request the server's policy refuses (Host, Origin, token, Content-Type: docs/bridge.md,
// "Running it safely") gets a plain-text 403, 401 or 415 and is never read.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "the store bridge answers JSON-RPC 2.0 over POST (docs/bridge.md)", http.StatusMethodNotAllowed)
		return
	}
	if ref := s.policy.Check(r); ref != nil {
		safehttp.Refuse(w, ref)
		return
	}
	if safehttp.TooLarge(r, s.opts.MaxRequestBytes) {
		writeResponse(w, nil, nil, s.tooLarge(fmt.Sprintf("the request declares %d bytes (Content-Length)", r.ContentLength)))
		return
	}
	in := s.budget.Body(w, r, http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBytes))
	defer in.Release()
	body, err := safehttp.ReadBody(in, r.ContentLength)
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			writeResponse(w, nil, nil, s.tooLarge("the request is longer"))
		case safehttp.Overloaded(err):
			safehttp.Busy(w, err)
		case r.Context().Err() != nil: // the client left while its body waited for the budget
		default:
			writeResponse(w, nil, nil, &RPCError{Code: CodeParseError, Message: "reading the request: " + err.Error()})
		}
		return
	}
	req, rpcErr := s.decode(body)
	if rpcErr != nil {
		in.Release()
		writeResponse(w, req.ID, nil, rpcErr)
		return
	}
	if largeAnswer(req.Method) {
		in.Release() // the request is decoded: its bytes are the answer's to hold now
		w.Header().Set("Content-Type", "application/json")
		_ = s.answers.Serve(w, r, req.Method+"\x00"+string(req.Params), func(ctx context.Context) safehttp.Answer {
			result, rpcErr := s.dispatch(ctx, req)
			return answerOf(req.ID, result, rpcErr)
		})
		return
	}
	result, rpcErr := s.dispatch(r.Context(), req)
	in.Release()
	writeResponse(w, req.ID, result, rpcErr)
}

// tooLarge is the answer to a request past MaxRequestBytes: -32008 naming the limit, with data
// {limit}.
func (s *Server) tooLarge(what string) *RPCError {
	e := &RPCError{Code: CodeTooLarge, Message: fmt.Sprintf("%s than %d bytes, the bridge's limit (--max-request-bytes)", what, s.opts.MaxRequestBytes)}
	e.Data, _ = json.Marshal(map[string]int64{"limit": s.opts.MaxRequestBytes})
	return e
}

// decode reads one request body strictly (wireLimits): JSON, UTF-8, no repeated key, no name
// holding a lone surrogate, nesting within the limit; then the JSON-RPC 2.0 frame. The id is returned whenever it can be read, so
// a refusal answers the request it refuses.
func (s *Server) decode(body []byte) (rpcRequest, *RPCError) {
	trimmed := bytes.TrimSpace(body)
	// Names (ids, keys, owners, models, targets) never hold a lone surrogate (I-STORE-81); the
	// values kept as JSON text may.
	opaque := []string{"payload", "metadata", "state", "value", "doc", "hints"}
	if err := jsonstrict.Check(trimmed, jsonstrict.Options{NamesWhole: true, Opaque: opaque}); err != nil {
		return strictRefusal(trimmed, err)
	}
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return rpcRequest{}, &RPCError{Code: CodeInvalidRequest, Message: "batch requests are not part of the store bridge protocol"}
	}
	var req rpcRequest
	if err := json.Unmarshal(trimmed, &req); err != nil {
		field, reason := DecodeError(err)
		return rpcRequest{}, &RPCError{Code: CodeInvalidRequest, Message: "not a JSON-RPC 2.0 request object: " + strings.TrimPrefix(field+": "+reason, ": ")}
	}
	if req.JSONRPC != "2.0" || req.Method == "" || len(req.ID) == 0 {
		return req, &RPCError{Code: CodeInvalidRequest, Message: `a request needs "jsonrpc": "2.0", a method and an id`}
	}
	return req, nil
}

// strictRefusal answers a body jsonstrict refused: not JSON is -32700; nesting past the limit
// -32008; invalid UTF-8 or a repeated key -32602 when it lies in params (data names the argument,
// so the client's error is spi.InvalidArgumentError) and -32600 in the frame.
func strictRefusal(body []byte, err error) (rpcRequest, *RPCError) {
	var se *jsonstrict.Error
	if !errors.As(err, &se) || se.Kind == jsonstrict.Syntax {
		return rpcRequest{}, &RPCError{Code: CodeParseError, Message: "the request body is not JSON: " + err.Error()}
	}
	if se.Kind == jsonstrict.TooDeep {
		e := &RPCError{Code: CodeTooLarge, Message: fmt.Sprintf("the request nests deeper than %d levels, the bridge's limit (at %s)", se.Limit, orWhole(se.Path))}
		e.Data, _ = json.Marshal(map[string]any{"limit": se.Limit, "argument": se.Path})
		return rpcRequest{}, e
	}
	// The text is JSON that encoding/json reads (it only replaces the bad bytes or keeps the last
	// key): the frame's id and method can be named in the answer.
	var req rpcRequest
	_ = json.Unmarshal(body, &req)
	if !AnswerableID(req.ID) {
		req.ID = nil
	}
	data, _ := json.Marshal(invalidData{Op: req.Method, Argument: se.Path, Reason: se.Reason})
	if se.Path == "params" || strings.HasPrefix(se.Path, "params.") || strings.HasPrefix(se.Path, "params[") {
		return req, &RPCError{Code: CodeInvalidParams, Message: err.Error(), Data: data}
	}
	return req, &RPCError{Code: CodeInvalidRequest, Message: "the request frame: " + err.Error(), Data: data}
}

// AnswerableID reports whether an id read from a refused body may be echoed: a string or a number
// that is itself strict JSON (an id holding the refused bytes is answered as null). The kernel wire
// answers its refusals by the same rule.
func AnswerableID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) && jsonstrict.Check(id, jsonstrict.Options{}) == nil
}

func orWhole(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// largeAnswer reports whether a method's answer grows with the data stored (it takes a read slot).
func largeAnswer(method string) bool {
	switch method {
	case "eventStore.read", "eventStore.readRange", "archiveStore.read", "contentStore.get",
		"snapshotStore.loadLatest", "snapshotStore.loadLatestSealed", "readModelStore.query", "durableStateStore.get":
		return true
	}
	return false
}

// dispatch runs one decoded request.
func (s *Server) dispatch(ctx context.Context, req rpcRequest) (any, *RPCError) {
	h, ok := s.handlers[req.Method]
	if !ok || !s.declared(req.Method) {
		return nil, &RPCError{Code: CodeMethodNotFound, Message: fmt.Sprintf("method %q is not served by this bridge", req.Method)}
	}
	params := req.Params
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{}`)
	}
	if err := s.schemas.ValidateParams(req.Method, params); err != nil {
		e := &RPCError{Code: CodeInvalidParams, Message: err.Error()}
		e.Data, _ = json.Marshal(invalidData{Op: req.Method, Argument: "params", Reason: err.Error()})
		return nil, e
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	result, err := s.call(ctx, h, params)
	if err != nil {
		var ie *spi.InvalidArgumentError
		if errors.As(err, &ie) && ie.Op == decodeOp {
			ie.Op = req.Method // the params did not decode: the call is the operation
		}
		return nil, ErrorFromSPI(err)
	}
	return result, nil
}

// call runs a handler, turning a panic of the store into an internal error.
func (s *Server) call(ctx context.Context, h handler, params json.RawMessage) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, fmt.Errorf("the store panicked: %v", p)
		}
	}()
	return h(ctx, params)
}

func (s *Server) declared(method string) bool {
	if method == MethodHandshake {
		return true
	}
	m, ok := LookupMethod(method)
	return ok && s.handshake.Declares(m.Seam, m.SpiMethod)
}

// writeResponse writes one response frame (answerOf).
func writeResponse(w http.ResponseWriter, id json.RawMessage, result any, rpcErr *RPCError) {
	w.Header().Set("Content-Type", "application/json")
	_ = answerOf(id, result, rpcErr).Write(w)
}

// Answer is the response frame of one call, built to be written (safehttp.Answers): the kernel
// wire's servers answer this way too.
func Answer(id json.RawMessage, result any, rpcErr *RPCError) safehttp.Answer {
	return answerOf(id, result, rpcErr)
}

// ObjectWithEnvelopes is a result object whose last member is a list of envelopes, written as it
// is encoded: Object is the object's JSON text without that member, Member its name. The bytes are
// json.Marshal's of the object with the member last.
type ObjectWithEnvelopes struct {
	Object    json.RawMessage
	Member    string
	Envelopes []spi.Envelope
}

// answerOf is the response frame of one call, built: a list of envelopes and content bytes are
// encoded as they are written (one envelope at a time, base64 through a streaming encoder), so a
// large answer is never held a second time as text; a client that goes away stops the writing at
// its next write. The bytes are those json.Marshal makes of the whole frame.
func answerOf(id json.RawMessage, result any, rpcErr *RPCError) safehttp.Answer {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if rpcErr == nil {
		switch v := result.(type) {
		case []spi.Envelope:
			return streamed{id: id, size: envelopesSize(v), body: func(bw *bufio.Writer) error { return writeEnvelopes(bw, v) }}
		case contentData:
			return streamed{id: id, size: int64(len(v.Data))*4/3 + 64, body: func(bw *bufio.Writer) error { return writeContent(bw, v.Data) }}
		case ObjectWithEnvelopes:
			if obj := bytes.TrimSpace(v.Object); len(obj) >= 2 && obj[len(obj)-1] == '}' {
				return streamed{id: id, size: int64(len(obj)) + envelopesSize(v.Envelopes), body: func(bw *bufio.Writer) error {
					_, _ = bw.Write(obj[:len(obj)-1])
					if len(obj) > 2 {
						_ = bw.WriteByte(',')
					}
					name, _ := json.Marshal(v.Member)
					_, _ = bw.Write(name)
					_ = bw.WriteByte(':')
					if err := writeEnvelopes(bw, v.Envelopes); err != nil {
						return err
					}
					return bw.WriteByte('}')
				}}
			}
		}
	}
	resp := rpcResponse{JSONRPC: "2.0", ID: id, Error: rpcErr}
	if rpcErr == nil {
		b, err := json.Marshal(result)
		if err != nil {
			resp.Error = &RPCError{Code: CodeInternalError, Message: "encoding the result: " + err.Error()}
		} else {
			resp.Result = b
		}
	}
	out, _ := json.Marshal(resp)
	return encoded(out)
}

// encoded is an answer encoded whole.
type encoded []byte

func (e encoded) Size() int64 { return int64(len(e)) }

func (e encoded) Write(w io.Writer) error {
	_, err := w.Write(e)
	return err
}

// streamed is an answer whose result is encoded as it is written.
type streamed struct {
	id   json.RawMessage
	size int64
	body func(*bufio.Writer) error
}

func (s streamed) Size() int64 { return s.size }

func (s streamed) Write(w io.Writer) error { return streamResult(w, s.id, s.body) }

// envelopesSize is about the bytes envs encode to: what each holds, and the member names around.
func envelopesSize(envs []spi.Envelope) int64 {
	n := int64(64)
	for _, e := range envs {
		n += int64(len(e.ID)+len(e.WorkflowID)+len(e.ExecutionID)+len(e.EventType)+len(e.Payload)+len(e.Metadata)) + 128
	}
	return n
}

// streamResult writes {"jsonrpc":"2.0","id":ID,"result":…} with the result written by body.
func streamResult(w io.Writer, id json.RawMessage, body func(*bufio.Writer) error) error {
	idText, err := json.Marshal(id) // compact and checked, as json.Marshal of the frame writes it
	if err != nil {
		idText = []byte("null")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.WriteString(`{"jsonrpc":"2.0","id":`)
	_, _ = bw.Write(idText)
	_, _ = bw.WriteString(`,"result":`)
	if err := body(bw); err != nil {
		return err // the client went away (or the answer cannot be encoded): stop here
	}
	_ = bw.WriteByte('}')
	return bw.Flush()
}

// writeEnvelopes writes envs as a JSON array through one json.Encoder, whose buffer is reused
// from envelope to envelope: answering a read allocates about one envelope's encoding, not one per
// envelope. The Encoder's newline after each value is dropped, so the bytes are json.Marshal's.
func writeEnvelopes(bw *bufio.Writer, envs []spi.Envelope) error {
	_ = bw.WriteByte('[')
	enc := json.NewEncoder(dropNewline{bw})
	for i, e := range envs {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return bw.WriteByte(']')
}

// dropNewline writes what a json.Encoder writes without the newline it ends each value with.
type dropNewline struct{ w io.Writer }

func (d dropNewline) Write(p []byte) (int, error) {
	if _, err := d.w.Write(bytes.TrimSuffix(p, []byte("\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func writeContent(bw *bufio.Writer, data []byte) error {
	_, _ = bw.WriteString(`{"data":"`)
	enc := base64.NewEncoder(base64.StdEncoding, bw)
	for len(data) > 0 {
		n := min(len(data), 48<<10)
		if _, err := enc.Write(data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := bw.WriteString(`"}`)
	return err
}

// decodeOp is the operation decode's errors name until dispatch names the method.
const decodeOp = "bridge"

// decode unmarshals validated params into p; an error names the argument as a path below params
// and the JSON it wants (DecodeError), never a Go type.
func decode[P any](raw json.RawMessage) (P, error) {
	var p P
	if err := json.Unmarshal(raw, &p); err != nil {
		field, reason := DecodeError(err)
		return p, spi.Invalid(decodeOp, strings.TrimSuffix("params."+field, "."), "%s", reason)
	}
	return p, nil
}

func envs(e []spi.Envelope) []spi.Envelope {
	if e == nil {
		return []spi.Envelope{}
	}
	return e
}

func seqList(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}

// on builds a handler from a typed function.
func on[P any](f func(ctx context.Context, p P) (any, error)) handler {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		p, err := decode[P](raw)
		if err != nil {
			return nil, err
		}
		return f(ctx, p)
	}
}

func (s *Server) buildHandlers() map[string]handler {
	hs := map[string]handler{
		MethodHandshake: func(context.Context, json.RawMessage) (any, error) { return s.handshake, nil },
	}
	if es := s.stores.EventStore; es != nil {
		addEventStore(hs, es)
	}
	if ss := s.stores.SnapshotStore; ss != nil {
		addSnapshotStore(hs, ss)
	}
	if as := s.stores.ArchiveStore; as != nil {
		addArchiveStore(hs, as)
	}
	if br := s.stores.BranchRegistry; br != nil {
		addBranchRegistry(hs, br)
	}
	if cs := s.stores.ContentStore; cs != nil {
		s.streams.open = map[string]*stream{}
		s.streams.max = s.opts.MaxStreamBytes
		addContentStore(hs, cs, &s.streams)
	}
	if ds := s.stores.DurableStateStore; ds != nil {
		addDurableStateStore(hs, ds)
	}
	if rm := s.stores.ReadModelStore; rm != nil {
		addReadModelStore(hs, rm)
	}
	if d := s.stores.Dispatcher; d != nil {
		addDispatcher(hs, d)
	}
	return hs
}

func addEventStore(hs map[string]handler, es spi.EventStore) {
	hs["eventStore.append"] = on(func(ctx context.Context, p appendParams) (any, error) {
		return nil, es.Append(ctx, p.ExecutionID, p.Events, spi.AppendOptions{Fence: p.Fence})
	})
	hs["eventStore.read"] = on(func(ctx context.Context, p execParams) (any, error) {
		e, err := es.Read(ctx, p.ExecutionID)
		return envs(e), err
	})
	if x, ok := es.(spi.RangeReader); ok {
		hs["eventStore.readRange"] = on(func(ctx context.Context, p readRangeParams) (any, error) {
			e, err := x.ReadRange(ctx, p.ExecutionID, p.From, p.To)
			return envs(e), err
		})
	}
	if x, ok := es.(spi.Fencer); ok {
		hs["eventStore.acquireFence"] = on(func(ctx context.Context, p execParams) (any, error) {
			return x.AcquireFence(ctx, p.ExecutionID)
		})
	}
	if x, ok := es.(spi.ConditionalFencer); ok {
		hs["eventStore.acquireFenceIf"] = on(func(ctx context.Context, p fenceIfParams) (any, error) {
			return x.AcquireFenceIf(ctx, p.ExecutionID, p.Expected)
		})
	}
	if x, ok := es.(spi.ConditionalAppender); ok {
		hs["eventStore.observe"] = on(func(ctx context.Context, p execParams) (any, error) {
			a, err := x.Observe(ctx, p.ExecutionID)
			return anchorResult{Anchor: string(a)}, err
		})
		hs["eventStore.appendIfUnchanged"] = on(func(ctx context.Context, p appendIfParams) (any, error) {
			return nil, x.AppendIfUnchanged(ctx, p.ExecutionID, spi.Anchor(p.Anchor), p.Events, spi.AppendOptions{Fence: p.Fence})
		})
	}
	if x, ok := es.(spi.Clock); ok {
		hs["eventStore.storeNow"] = on(func(ctx context.Context, _ noParams) (any, error) {
			n, err := x.StoreNow(ctx)
			return nowResult{Now: n}, err
		})
	}
	if x, ok := es.(spi.ThroughDeleter); ok {
		hs["eventStore.deleteThrough"] = on(func(ctx context.Context, p throughParams) (any, error) {
			return nil, x.DeleteThrough(ctx, p.ExecutionID, p.Through)
		})
	}
	if x, ok := es.(spi.SealingReporter); ok {
		hs["eventStore.sealingCapability"] = on(func(ctx context.Context, _ noParams) (any, error) {
			sc, err := x.SealingCapability(ctx)
			if sc != nil && sc.Covers == nil {
				c := *sc
				c.Covers = []string{}
				sc = &c
			}
			return sc, err
		})
	}
	if x, ok := es.(spi.PrefixCopier); ok {
		hs["eventStore.copyPrefix"] = on(func(ctx context.Context, p copyPrefixParams) (any, error) {
			return nil, x.CopyPrefix(ctx, p.Source, p.Target, p.Through)
		})
	}
	if x, ok := es.(spi.ExecutionDeleter); ok {
		hs["eventStore.deleteExecution"] = on(func(ctx context.Context, p execParams) (any, error) {
			return nil, x.DeleteExecution(ctx, p.ExecutionID)
		})
	}
	if x, ok := es.(spi.ExecutionLister); ok {
		hs["eventStore.listExecutionsPage"] = on(func(ctx context.Context, p listPageParams) (any, error) {
			pg, err := x.ListExecutionsPage(ctx, p.Cursor, p.Limit)
			if pg.ExecutionIDs == nil {
				pg.ExecutionIDs = []string{}
			}
			return pg, err
		})
	}
}

func addSnapshotStore(hs map[string]handler, ss spi.SnapshotStore) {
	hs["snapshotStore.save"] = on(func(ctx context.Context, p saveParams) (any, error) {
		return nil, ss.Save(ctx, p.Snapshot)
	})
	hs["snapshotStore.loadLatest"] = on(func(ctx context.Context, p execParams) (any, error) {
		return ss.LoadLatest(ctx, p.ExecutionID)
	})
	if x, ok := ss.(spi.SealedLoader); ok {
		hs["snapshotStore.loadLatestSealed"] = on(func(ctx context.Context, p execParams) (any, error) {
			return x.LoadLatestSealed(ctx, p.ExecutionID)
		})
	}
	if x, ok := ss.(spi.SnapshotDeleter); ok {
		hs["snapshotStore.deleteExecution"] = on(func(ctx context.Context, p execParams) (any, error) {
			return nil, x.DeleteExecution(ctx, p.ExecutionID)
		})
	}
	if x, ok := ss.(spi.SnapshotPruner); ok {
		hs["snapshotStore.pruneSnapshots"] = on(func(ctx context.Context, p rangeParams) (any, error) {
			s, err := x.PruneSnapshots(ctx, p.ExecutionID, spi.SeqRange{From: p.From, Through: p.Through})
			return seqList(s), err
		})
	}
	if x, ok := ss.(spi.SequenceLister); ok {
		hs["snapshotStore.listSequences"] = on(func(ctx context.Context, p execParams) (any, error) {
			s, err := x.ListSequences(ctx, p.ExecutionID)
			return seqList(s), err
		})
	}
}

func addArchiveStore(hs map[string]handler, as spi.ArchiveStore) {
	hs["archiveStore.append"] = on(func(ctx context.Context, p archiveAppendParams) (any, error) {
		return nil, as.Append(ctx, p.ExecutionID, p.Events)
	})
	hs["archiveStore.read"] = on(func(ctx context.Context, p execParams) (any, error) {
		e, err := as.Read(ctx, p.ExecutionID)
		return envs(e), err
	})
	if x, ok := as.(spi.ArchiveDeleter); ok {
		hs["archiveStore.deleteExecution"] = on(func(ctx context.Context, p execParams) (any, error) {
			return nil, x.DeleteExecution(ctx, p.ExecutionID)
		})
	}
	if x, ok := as.(spi.SegmentReplacer); ok {
		hs["archiveStore.replaceSegments"] = on(func(ctx context.Context, p replaceParams) (any, error) {
			return nil, x.ReplaceSegments(ctx, p.ExecutionID, spi.SeqRange{From: p.From, Through: p.Through}, p.Events)
		})
	}
}

func addBranchRegistry(hs map[string]handler, br spi.BranchRegistry) {
	hs["branchRegistry.register"] = on(func(ctx context.Context, p registerParams) (any, error) {
		return nil, br.Register(ctx, p.Branch)
	})
	hs["branchRegistry.get"] = on(func(ctx context.Context, p idParams) (any, error) {
		return br.Get(ctx, p.ID)
	})
	hs["branchRegistry.listChildren"] = on(func(ctx context.Context, p parentParams) (any, error) {
		b, err := br.ListChildren(ctx, p.ParentID)
		if b == nil {
			b = []spi.Branch{}
		}
		return b, err
	})
}
