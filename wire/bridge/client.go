package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loom-kernel/loom-conform/internal/jsonstrict"
	"github.com/loom-kernel/loom-conform/manifest"
)

// ClientOptions configure a bridge client. Zero values take the defaults.
type ClientOptions struct {
	// HTTPClient carries the calls (default: a client with its own pooled transport).
	HTTPClient *http.Client
	// CallTimeout bounds each call (default 30 s), within the caller's context deadline.
	CallTimeout time.Duration
	// MaxResponseBytes caps a response body (default 64 MiB); a larger one is a protocol error.
	MaxResponseBytes int64
	// Name is sent in the handshake as the client's name (default "loom-conform").
	Name string
	// Token, when set, is sent as "Authorization: Bearer <token>" with every call (a bridge served
	// beyond loopback requires one; docs/bridge.md, "Running it safely").
	Token string
	// Observe, when set, sees every exchange (method, request body, response body or error) — for
	// recording example exchanges and debugging.
	Observe func(Exchange)
}

// Exchange is one call as seen on the wire.
type Exchange struct {
	Method   string
	Request  []byte
	Response []byte
	Err      error
	Duration time.Duration
}

// Stats count what a client has seen; certify uses them to tell a broken store from a broken link.
type Stats struct {
	Calls           int64
	TransportErrors int64
	ProtocolErrors  int64
	// LastFault is the latest transport or protocol error (nil when none).
	LastFault error
}

// Client talks to one bridge. Its EventStore, SnapshotStore, ArchiveStore and BranchRegistry
// methods return spi implementations that forward every call; optional methods the handshake does
// not declare answer spi.ErrUnsupported without a call and report false from Implements, so the kits
// skip them. A Client is safe for concurrent use.
type Client struct {
	url       string
	opts      ClientOptions
	hc        *http.Client
	schemas   *Schemas
	handshake Handshake
	nextID    atomic.Int64

	calls, transportErrs, protocolErrs atomic.Int64
	mu                                 sync.Mutex
	lastFault                          error
	// pending holds the calls sent and not yet answered, by request id: method and when it was sent.
	pending map[int64]PendingCall
}

// PendingCall is a call sent to the bridge and not yet answered.
type PendingCall struct {
	Method string
	Sent   time.Time
}

// OldestPending is the call the client has waited for longest, if one is waiting: a harness whose
// check stalled names it (I-CERT-61).
func (c *Client) OldestPending() (PendingCall, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var oldest PendingCall
	for _, p := range c.pending {
		if oldest.Method == "" || p.Sent.Before(oldest.Sent) {
			oldest = p
		}
	}
	return oldest, oldest.Method != ""
}

// Dial connects to the bridge at url and performs the handshake. The handshake must match its
// schema and name protocol major 1.
func Dial(ctx context.Context, url string, opts ClientOptions) (*Client, error) {
	c, err := NewClient(url, opts)
	if err != nil {
		return nil, err
	}
	hs, err := c.FetchHandshake(ctx)
	if err != nil {
		return nil, err
	}
	c.handshake = hs
	return c, nil
}

// NewClient builds a client without calling the bridge (see Dial).
func NewClient(url string, opts ClientOptions) (*Client, error) {
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("bridge url %q: want http://HOST:PORT[/PATH]", url)
	}
	schemas, err := CompileSchemas()
	if err != nil {
		return nil, err
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.Name == "" {
		opts.Name = "loom-conform"
	}
	hc := opts.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		tr.DisableCompression = true
		// Under the servers' idle timeout (60 s): the client lets a connection go before the
		// server does, so a call never meets one the server is closing.
		tr.IdleConnTimeout = 30 * time.Second
		hc = &http.Client{Transport: tr}
	}
	return &Client{url: url, opts: opts, hc: hc, schemas: schemas}, nil
}

// URL is the bridge's address.
func (c *Client) URL() string { return c.url }

// Handshake is what the bridge declared when the client dialled.
func (c *Client) Handshake() Handshake { return c.handshake }

// FetchHandshake calls bridge.handshake and checks the answer.
func (c *Client) FetchHandshake(ctx context.Context) (Handshake, error) {
	var hs Handshake
	if err := c.Call(ctx, MethodHandshake, handshakeParams{Client: c.opts.Name, Protocol: ProtocolVersion}, &hs); err != nil {
		return hs, err
	}
	if !strings.HasPrefix(hs.Protocol, "1.") {
		return hs, c.protocolFault(&ProtocolError{Method: MethodHandshake, Reason: fmt.Sprintf("protocol %q, want 1.x.y", hs.Protocol)})
	}
	return hs, nil
}

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Calls: c.calls.Load(), TransportErrors: c.transportErrs.Load(), ProtocolErrors: c.protocolErrs.Load(), LastFault: c.lastFault}
}

// Close releases idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

func (c *Client) transportFault(e *TransportError) error { return c.fault(e) }

// fault counts a failure of the link (a transport error, a refusal) and keeps it as the last.
func (c *Client) fault(e error) error {
	c.transportErrs.Add(1)
	c.mu.Lock()
	c.lastFault = e
	c.mu.Unlock()
	return e
}

func (c *Client) protocolFault(e *ProtocolError) error {
	c.protocolErrs.Add(1)
	c.mu.Lock()
	c.lastFault = e
	c.mu.Unlock()
	return e
}

// Call invokes method with params and decodes the validated result into result (which may be nil).
// A declared method answered with -32601 is a protocol error: the handshake lied.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encoding params: %w", method, err)
	}
	res, err := c.CallRaw(ctx, method, raw)
	if err != nil {
		var re *RemoteError
		if errors.As(err, &re) && re.RPC.Code == CodeMethodNotFound {
			return c.protocolFault(&ProtocolError{Method: method,
				Reason: "the handshake declares this method but the bridge answered -32601 (method not found)"})
		}
		return err
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(res, result); err != nil {
		return c.protocolFault(&ProtocolError{Method: method, Reason: "result does not decode: " + DecodeText(err), Body: clip(res)})
	}
	return nil
}

// CallRaw sends one request and returns the raw result after checking the response frame and the
// result (or error object) against the schemas. Errors: *RemoteError (the bridge answered an
// error; unwraps to the spi error), *TransportError, *ProtocolError.
func (c *Client) CallRaw(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	c.calls.Add(1)
	id := c.nextID.Add(1)
	req, _ := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: method, Params: params})
	start := time.Now()
	c.mu.Lock()
	if c.pending == nil {
		c.pending = map[int64]PendingCall{}
	}
	c.pending[id] = PendingCall{Method: method, Sent: start}
	c.mu.Unlock()
	body, err := c.post(ctx, method, req)
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
	if c.opts.Observe != nil {
		c.opts.Observe(Exchange{Method: method, Request: req, Response: body, Err: err, Duration: time.Since(start)})
	}
	if err != nil {
		return nil, err
	}
	if err := jsonstrict.Check(body, jsonstrict.Options{}); err != nil {
		return nil, c.protocolFault(&ProtocolError{Method: method, Reason: "response: " + err.Error(), Body: clip(body)})
	}
	if err := c.schemas.ValidateResponse(body); err != nil {
		return nil, c.protocolFault(&ProtocolError{Method: method, Reason: err.Error(), Body: clip(body)})
	}
	var resp rpcResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, c.protocolFault(&ProtocolError{Method: method, Reason: "response does not decode: " + DecodeText(err), Body: clip(body)})
	}
	// An error the bridge could not tie to a request (a body too large to read) carries id null.
	nullErr := string(resp.ID) == "null" && resp.Error != nil
	if string(resp.ID) != strconv.FormatInt(id, 10) && !nullErr {
		return nil, c.protocolFault(&ProtocolError{Method: method, Reason: fmt.Sprintf("response id %s, want %d", resp.ID, id), Body: clip(body)})
	}
	if resp.Error != nil {
		return nil, ErrorToSPI(method, *resp.Error)
	}
	if _, known := c.schemas.result[method]; known {
		if err := c.schemas.ValidateResult(method, resp.Result); err != nil {
			return nil, c.protocolFault(&ProtocolError{Method: method, Reason: err.Error(), Body: clip(resp.Result)})
		}
	}
	return resp.Result, nil
}

// post sends one request. A write whose caller's context ends is still awaited until the bridge
// answers or the call timeout passes (I-BRIDGE-5): a remote store cannot be interrupted mid-write,
// so only waiting makes the outcome settled when the call returns. Reads return at once.
func (c *Client) post(ctx context.Context, method string, req []byte) ([]byte, error) {
	if readOnly(method) {
		return c.postCtx(ctx, method, req)
	}
	type answer struct {
		body []byte
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		b, err := c.postCtx(context.WithoutCancel(ctx), method, req)
		done <- answer{b, err}
	}()
	select {
	case a := <-done:
		return a.body, a.err
	case <-ctx.Done():
		a := <-done // bounded by CallTimeout
		return a.body, a.err
	}
}

func readOnly(method string) bool {
	switch method {
	case MethodHandshake, "eventStore.read", "eventStore.readRange", "eventStore.observe", "eventStore.storeNow",
		"eventStore.sealingCapability", "eventStore.listExecutionsPage", "snapshotStore.loadLatest",
		"snapshotStore.loadLatestSealed", "snapshotStore.listSequences", "archiveStore.read",
		"branchRegistry.get", "branchRegistry.listChildren":
		return true
	}
	return false
}

func (c *Client) postCtx(ctx context.Context, method string, req []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(req))
	if err != nil {
		return nil, c.transportFault(&TransportError{Method: method, Err: err})
	}
	c.setHeaders(hreq)
	hresp, err := c.hc.Do(hreq)
	if err != nil {
		return nil, c.transportFault(&TransportError{Method: method, Err: err})
	}
	defer hresp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(hresp.Body, c.opts.MaxResponseBytes+1))
	if err != nil {
		return nil, c.transportFault(&TransportError{Method: method, Err: fmt.Errorf("reading the response: %w", err)})
	}
	switch {
	case hresp.StatusCode == http.StatusBadGateway || hresp.StatusCode == http.StatusServiceUnavailable || hresp.StatusCode == http.StatusGatewayTimeout:
		return nil, c.transportFault(&TransportError{Method: method, Err: fmt.Errorf("HTTP %s", hresp.Status)})
	case hresp.StatusCode == http.StatusUnauthorized || hresp.StatusCode == http.StatusForbidden || hresp.StatusCode == http.StatusUnsupportedMediaType:
		return nil, c.fault(&RefusedError{Method: method, Status: hresp.Status, Reason: strings.TrimSpace(clip(body))})
	case hresp.StatusCode != http.StatusOK:
		return nil, c.protocolFault(&ProtocolError{Method: method, Reason: fmt.Sprintf("HTTP status %s, want 200 OK", hresp.Status), Body: clip(body)})
	case int64(len(body)) > c.opts.MaxResponseBytes:
		return nil, c.protocolFault(&ProtocolError{Method: method, Reason: fmt.Sprintf("response exceeds %d bytes", c.opts.MaxResponseBytes)})
	}
	return body, nil
}

// setHeaders marks a request as JSON and carries the token.
func (c *Client) setHeaders(r *http.Request) {
	r.Header.Set("Content-Type", "application/json")
	if c.opts.Token != "" {
		r.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// declares reports whether the handshake declares the manifest method of seam.
func (c *Client) declares(seam, method string) bool { return c.handshake.Declares(seam, method) }

// serves reports whether the handshake lists seam.
func (c *Client) serves(seam string) bool {
	_, ok := c.handshake.Seams[seam]
	return ok
}

// claimed is the SPI version the handshake claims for seam.
func (c *Client) claimed(seam string) string {
	if s, ok := c.handshake.Seams[seam]; ok {
		return s.SpiVersion
	}
	d, _ := manifest.LookupSpi(seam)
	return d.Version
}

// PostRaw sends body as-is and returns the HTTP status and response body, with no checks: for
// probing how a bridge treats malformed requests.
func (c *Client) PostRaw(ctx context.Context, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	c.setHeaders(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, &TransportError{Method: "(raw)", Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxResponseBytes))
	return resp.StatusCode, b, err
}

// ErrorCode returns the JSON-RPC error code of a response body, or 0 when it carries none.
func ErrorCode(body []byte) int {
	var r rpcResponse
	if json.Unmarshal(body, &r) != nil || r.Error == nil {
		return 0
	}
	return r.Error.Code
}
