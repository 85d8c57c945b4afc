package certify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/internal/safehttp"
	"github.com/loom-kernel/loom-conform/internal/safetext"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// protocol is one of the two handshakes a target can be asked for: a store bridge's
// (bridge.handshake, docs/bridge.md) or a kernel's (wire.handshake, docs/wire.md).
type protocol struct {
	name   string // "a store bridge", "a kernel"
	method string
	params any
	doc    string
	// certify is the certify command that takes a target of this protocol.
	certify string
}

var (
	storeProtocol = protocol{name: "a store bridge", method: bridge.MethodHandshake,
		params: map[string]string{"client": "loom-conform", "protocol": bridge.ProtocolVersion}, doc: "docs/bridge.md", certify: "certify all"}
	kernelProtocol = protocol{name: "a kernel", method: carrier.MethodHandshake, params: map[string]any{}, doc: "docs/wire.md",
		certify: "certify " + KernelKind}
)

func (p protocol) other() protocol {
	if p.method == storeProtocol.method {
		return kernelProtocol
	}
	return storeProtocol
}

// answer is what a target said to one request, as the wire carried it.
type answer struct {
	status int
	ctype  string
	body   []byte
	// rpc is the body as a JSON-RPC 2.0 response; nil when it is not one (notRPC says why).
	rpc    *rpcFrame
	notRPC string
}

type rpcFrame struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      json.RawMessage  `json:"id"`
	Result  json.RawMessage  `json:"result"`
	Error   *bridge.RPCError `json:"error"`
}

// contactClient asks one question per connection: first contact must not hold a connection a
// target's own pool would count.
var contactClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// ask posts one JSON-RPC request for p's handshake to url and reads the answer (at most 64 KiB);
// the error is a transport failure (refused, reset, no answer within 10 s).
func ask(ctx context.Context, url, token string, p protocol) (answer, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": p.method, "params": p.params})
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := contactClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return answer{}, fmt.Errorf("reading the answer: %w", err)
	}
	a := answer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: b}
	var f rpcFrame
	switch {
	case !json.Valid(b):
		a.notRPC = "the body is not JSON"
	case json.Unmarshal(b, &f) != nil || f.JSONRPC != "2.0":
		a.notRPC = `the body is JSON but not a JSON-RPC 2.0 response (no "jsonrpc": "2.0")`
	case f.Error == nil && f.Result == nil:
		a.notRPC = `the response has neither "result" nor "error"`
	default:
		a.rpc = &f
	}
	return a, nil
}

// refused reports a connection nothing listened for.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// contact is the first exchange with a started target at url.
type contact struct {
	url, token string
	cfg        Config
	// flag names the target as certify's flags do (--exec '…'), for the command a target of the
	// other protocol is told to run.
	flag string
}

// handshake asks the target for the handshake of p until it answers or the start timeout passes,
// telling progress what it waits for. It returns the handshake's result, or the one cause of a
// target that failed: nothing listened (said at once, then waited for), an answer that is no
// handshake of p — HTTP 401 without the token, a page that is not JSON-RPC, a target of the other
// protocol (a kernel asked for a store's handshake, or the reverse), an error in place of the
// handshake — each naming what it answered, what was wanted and the likely mistake (I-CERT-30).
func (c contact) handshake(ctx context.Context, p protocol) (json.RawMessage, error) {
	url, token, timeout, progress := c.url, c.token, c.cfg.StartTimeout, c.cfg.Progress
	deadline := time.Now().Add(timeout)
	fmt.Fprintf(progress, "waiting for %s at %s to answer %s (up to --start-timeout %v) …\n", p.name, url, p.method, timeout)
	saidRefused := false
	for {
		a, err := ask(ctx, url, token, p)
		if err == nil && !busy(a.status) {
			return c.judge(ctx, a, p)
		}
		if err == nil {
			err = fmt.Errorf("HTTP %s", statusText(a.status))
		}
		if refused(err) && !saidRefused {
			fmt.Fprintf(progress, "connection refused at %s: nothing listens there yet; still waiting …\n", url)
			saidRefused = true
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			if refused(err) {
				return nil, fmt.Errorf("connection refused at %s for the whole --start-timeout (%v): nothing listens there — is %s running, and is this the address it printed after \"listening \"?", url, timeout, p.name)
			}
			return nil, fmt.Errorf("no answer to %s from %s within --start-timeout (%v): %v", p.method, url, timeout, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// busy is a status a proxy in front of a starting server answers: wait and ask again.
func busy(status int) bool {
	return status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

func statusText(code int) string { return fmt.Sprintf("%d %s", code, http.StatusText(code)) }

// judge says whether a is p's handshake: its result, or why not as the run's one cause.
func (c contact) judge(ctx context.Context, a answer, p protocol) (json.RawMessage, error) {
	url, token, said := c.url, c.token, a.said()
	switch {
	case a.status == http.StatusUnauthorized && token == "":
		return nil, fmt.Errorf("unauthorized: give --token (or set %s): the target at %s answered %s with %s", safehttp.TokenEnv, url, p.method, said)
	case a.status == http.StatusUnauthorized:
		return nil, fmt.Errorf("unauthorized: the target at %s refused the token given (--token or %s): it answered %s with %s", url, safehttp.TokenEnv, p.method, said)
	case a.status == http.StatusForbidden:
		return nil, fmt.Errorf("forbidden: the target at %s answered %s with %s: it refuses this Host or Origin (%s, \"Running it safely\")", url, p.method, said, p.doc)
	case a.rpc == nil:
		return nil, fmt.Errorf("the target at %s is not %s: asked for %s, it answered %s, which is not a JSON-RPC 2.0 response (%s); want %s's handshake (%s). %s",
			url, p.name, p.method, said, a.notRPC, p.name, p.doc, a.likely())
	case a.rpc.Error != nil && a.rpc.Error.Code == bridge.CodeMethodNotFound:
		o := p.other()
		if b, err := ask(ctx, url, token, o); err == nil && b.rpc != nil && b.rpc.Error == nil {
			return nil, fmt.Errorf("the target at %s is %s, not %s: it answered %s with -32601 (method not found) and %s with its handshake (%s); certify it with: %s %s %s",
				url, o.name, p.name, p.method, o.method, implementationOf(b.rpc.Result), c.cfg.Command, o.certify, c.flag)
		}
		return nil, fmt.Errorf("the target at %s does not serve %s: it answered -32601 (method not found) (%s), and does not serve %s either; want %s's handshake (%s)",
			url, p.method, said, o.method, p.name, p.doc)
	case a.rpc.Error != nil:
		return nil, fmt.Errorf("the target at %s answered %s with an error in place of its handshake: %s; want %s's handshake (%s)", url, p.method, said, p.name, p.doc)
	case a.status != http.StatusOK:
		return nil, fmt.Errorf("the target at %s answered %s with %s; want HTTP 200 with %s's handshake (%s)", url, p.method, said, p.name, p.doc)
	}
	return a.rpc.Result, nil
}

// said shows an answer in one line: its status, content type and the start of its body.
func (a answer) said() string {
	ct := a.ctype
	if ct == "" {
		ct = "no Content-Type"
	}
	body := strings.TrimSpace(string(a.body))
	if body == "" {
		return fmt.Sprintf("HTTP %s, %s, an empty body", statusText(a.status), safetext.Line(ct))
	}
	return fmt.Sprintf("HTTP %s, %s, body %q", statusText(a.status), safetext.Line(ct), safetext.Line(clipHead(body, 160)))
}

// likely names the mistake an answer that is not JSON-RPC most often comes from.
func (a answer) likely() string {
	body := strings.ToLower(strings.TrimSpace(string(a.body)))
	switch {
	case strings.HasPrefix(body, "<"):
		return "It looks like a web page: is this the URL the bridge printed after \"listening \", and does it serve JSON-RPC at that path?"
	case a.notRPC == "the body is not JSON":
		return "A bridge must write each response as one JSON-RPC 2.0 object ({\"jsonrpc\":\"2.0\",\"id\":…,\"result\":…}) with Content-Type application/json."
	}
	return "A bridge must wrap each answer in a JSON-RPC 2.0 response: {\"jsonrpc\":\"2.0\",\"id\":<the request's id>,\"result\":…} (or \"error\")."
}

// clipHead keeps the first n bytes of s, cut between characters.
func clipHead(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return clipRunes(s, n) + "…"
}

// implementationOf names the implementation a handshake result declares (both protocols' handshakes
// carry "implementation": {"name", "version"}).
func implementationOf(result json.RawMessage) string {
	var hs struct {
		Implementation struct{ Name, Version string } `json:"implementation"`
	}
	if json.Unmarshal(result, &hs) != nil || hs.Implementation.Name == "" {
		return "no implementation named"
	}
	return fmt.Sprintf("implementation %q %q", safetext.Line(hs.Implementation.Name), safetext.Line(hs.Implementation.Version))
}

// startTarget starts the target within the start timeout, saying first what it starts.
func startTarget(ctx context.Context, target Target, cfg Config) (*Running, error) {
	if id := target.Describe(); id.Kind != "url" {
		fmt.Fprintf(cfg.Progress, "starting %s (up to --start-timeout %v) …\n", safetext.Line(id.String()), cfg.StartTimeout)
	}
	sctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	return target.Start(sctx)
}

// contacted tells progress that the handshake came: who answered and how fast; a slow target's
// note comes before the first check.
func contacted(cfg Config, who string, l *Latency) {
	line := "handshake: " + safetext.Line(who)
	if l != nil {
		line += "; round trip " + RoundTripLine(l)
	}
	fmt.Fprintln(cfg.Progress, line)
	if l != nil && l.Slow {
		fmt.Fprintf(cfg.Progress, "NOTE %s\n", SlowNote(l, cfg.Timeout))
	}
}

// handshakeWords names a store bridge by its handshake: implementation and seams served.
func handshakeWords(hs bridge.Handshake) string {
	var seams []string
	for _, s := range bridge.Seams() {
		if sv, ok := hs.Seams[s]; ok {
			seams = append(seams, s+" "+sv.SpiVersion)
		}
	}
	if len(seams) == 0 {
		seams = []string{"no seam"}
	}
	return fmt.Sprintf("%s %s, serving %s", hs.Implementation.Name, hs.Implementation.Version, strings.Join(seams, ", "))
}
