package carrier

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/loom-kernel/loom-conform/internal/jsonstrict"
	"github.com/loom-kernel/loom-conform/internal/safehttp"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Client is a minimal Go client of the wire ABI (tests, `certify kernel`). Calls travel over one
// keep-alive HTTP connection pool.
type Client struct {
	url     string
	hc      *http.Client
	timeout time.Duration
	nextID  atomic.Int64
	// Observe, when set, sees every exchange when it ends: the method, the request and response
	// bodies, the error and how long it took (a streaming form's method is the one its request
	// line names).
	Observe func(bridge.Exchange)
	// started, when set, is told of every exchange as it begins (Observed).
	started func(method string)
	// Token, when set (before the first call), is sent as "Authorization: Bearer <token>": a
	// kernel served beyond loopback requires one (docs/wire.md, "Running it safely").
	Token string
}

// NewClient returns a client of the kernel at url; timeout bounds each call (0 = 30 s).
func NewClient(url string, timeout time.Duration) *Client {
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	// The timeout bounds each call through its context: http.Client.Timeout would start a timer
	// goroutine per request. Responses are small JSON: no compression to negotiate.
	// Idle connections go after 30 s, under the servers' 60 s, so a call never meets one the
	// server is closing.
	tr := &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true, IdleConnTimeout: 30 * time.Second}
	return &Client{url: url, hc: &http.Client{Transport: tr}, timeout: timeout}
}

// Observed returns a client of the same kernel, sharing c's connections and token, whose exchanges
// observe sees as they end and started as they begin (either may be nil): a check's trail of the
// calls it made (kits/kernelkit's Trail).
func (c *Client) Observed(observe func(bridge.Exchange), started func(method string)) *Client {
	return &Client{url: c.url, hc: c.hc, timeout: c.timeout, Token: c.Token, Observe: observe, started: started}
}

// URL returns the kernel's URL.
func (c *Client) URL() string { return c.url }

// Close drops idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// CallError is an error the kernel answered.
type CallError struct {
	Method string
	RPC    bridge.RPCError
}

func (e *CallError) Error() string {
	return fmt.Sprintf("%s: kernel error %d: %s", e.Method, e.RPC.Code, e.RPC.Message)
}

// Kind returns the error data's "kind".
func (e *CallError) Kind() string {
	var d struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(e.RPC.Data, &d)
	return d.Kind
}

// Call sends one request and decodes the result into out (which may be nil). A kernel error is a
// *CallError; anything else is a transport or protocol failure.
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encoding params: %w", method, err)
	}
	id := c.nextID.Add(1)
	body := appendRequest(make([]byte, 0, len(raw)+len(method)+48), id, method, raw)
	resp, err := c.observed(ctx, method, "application/json", body)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := jsonstrict.Check(resp, jsonstrict.Options{}); err != nil {
		return fmt.Errorf("%s: response: %v", method, err)
	}
	var r Response
	if err := unmarshalResponse(resp, &r); err != nil {
		return fmt.Errorf("%s: response is not a JSON-RPC response: %s", method, bridge.DecodeText(err))
	}
	if r.JSONRPC != "2.0" || string(r.ID) != strconv.FormatInt(id, 10) {
		return fmt.Errorf("%s: response frame jsonrpc=%q id=%s, want 2.0 and %d", method, r.JSONRPC, r.ID, id)
	}
	if r.Error != nil {
		return &CallError{Method: method, RPC: *r.Error}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("%s: result does not decode: %s", method, bridge.DecodeText(err))
	}
	return nil
}

// Post sends a raw body with a content type and returns the response body.
func (c *Client) Post(ctx context.Context, contentType string, body []byte) ([]byte, error) {
	method := "POST " + contentType
	if line, _, _ := bytes.Cut(body, []byte("\n")); json.Valid(line) {
		var r struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(line, &r) == nil && r.Method != "" {
			method = r.Method
		}
	}
	return c.observed(ctx, method, contentType, body)
}

// observed posts body, telling the client's observers.
func (c *Client) observed(ctx context.Context, method, contentType string, body []byte) ([]byte, error) {
	if c.Observe == nil && c.started == nil {
		return c.post(ctx, contentType, body)
	}
	if c.started != nil {
		c.started(method)
	}
	start := time.Now()
	resp, err := c.post(ctx, contentType, body)
	if c.Observe != nil {
		c.Observe(bridge.Exchange{Method: method, Request: body, Response: resp, Err: err, Duration: time.Since(start)})
	}
	return resp, err
}

// appendRequest appends the request frame of a call whose params are raw (json.Marshal's output:
// compact and escaped), byte for byte what json.Marshal makes of the Request.
func appendRequest(b []byte, id int64, method string, raw json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	if plainName(method) {
		b = append(append(append(b, '"'), method...), '"')
	} else {
		m, _ := json.Marshal(method)
		b = append(b, m...)
	}
	if len(raw) > 0 {
		b = append(append(b, `,"params":`...), raw...)
	}
	return append(b, '}')
}

// plainName reports whether a method name is JSON text as it stands: letters, digits, '.', '_', '-'.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (c *Client) post(ctx context.Context, contentType string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := safehttp.ReadBody(io.LimitReader(resp.Body, bridge.DefaultMaxResponseBytes), min(resp.ContentLength, bridge.DefaultMaxResponseBytes))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	return b, nil
}

// unmarshalResponse is json.Unmarshal of a response object: valid JSON whose members are a result
// response's, each plain, is walked; anything else (an error response included) is json.Unmarshal's.
func unmarshalResponse(b []byte, r *Response) error {
	if json.Valid(b) && eachMember(b, func(k, v []byte) bool {
		ok := true
		switch string(k) {
		case "jsonrpc":
			r.JSONRPC, ok = plainString(v)
		case "id":
			r.ID = append(json.RawMessage(nil), v...)
		case "result":
			r.Result = append(json.RawMessage(nil), v...)
		default:
			ok = false
		}
		return ok
	}) {
		return nil
	}
	*r = Response{}
	return json.Unmarshal(b, r)
}
