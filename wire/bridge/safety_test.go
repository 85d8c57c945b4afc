package bridge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// post sends body to h as a client would and returns the status and the decoded answer.
func post(t testing.TB, h http.Handler, body string, hdr map[string]string) (int, rpcAnswer) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7450/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var a rpcAnswer
	if w.Code == http.StatusOK {
		if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
			t.Fatalf("answer %q: %v", w.Body.String(), err)
		}
		a.raw = w.Body.Bytes()
	}
	return w.Code, a
}

type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Op       string `json:"op"`
			Argument string `json:"argument"`
			Limit    int    `json:"limit"`
		} `json:"data"`
	} `json:"error"`
	raw []byte
}

func memoryServer(t testing.TB, opts bridge.ServerOptions) (*bridge.Server, *memory.EventStore) {
	t.Helper()
	es := memory.NewEventStore()
	srv, err := bridge.NewServer(bridge.Stores{EventStore: es, BranchRegistry: memory.NewBranchRegistry(),
		DurableStateStore: memory.NewDurableStateStore()}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv, es
}

func appendBody(id, execID, payload string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"eventStore.append","params":{"executionId":"%s","events":[{"id":"e0","workflowId":"w","executionId":"%s","eventType":"T","sequence":0,"timestamp":1,"payload":%s}]}}`, id, execID, execID, payload)
}

// Reference: I-NET-1, I-NET-2 — a page in a browser cannot write to a loopback bridge: a body that is
// not application/json (a form post's text/plain), a Host that is not an address of the machine
// (DNS rebinding), another site's Origin and, when the bridge has a token, a request without it
// are refused before the body is read; nothing is appended.
func TestBridgeRefusesCrossSiteRequests(t *testing.T) {
	const tok = "bridge-test-token-0123456789"
	srv, es := memoryServer(t, bridge.ServerOptions{Token: tok})
	body := appendBody("1", "victim", `{}`)
	auth := "Bearer " + tok
	for _, c := range []struct {
		name   string
		hdr    map[string]string
		status int
	}{
		{"text/plain", map[string]string{"Content-Type": "text/plain", "Authorization": auth}, http.StatusUnsupportedMediaType},
		{"a rebinding Host", map[string]string{"Host": "attacker.example:7450", "Authorization": auth}, http.StatusForbidden},
		{"another site's Origin", map[string]string{"Origin": "https://attacker.example", "Authorization": auth}, http.StatusForbidden},
		{"no token", nil, http.StatusUnauthorized},
		{"a wrong token", map[string]string{"Authorization": "Bearer bridge-test-token-0123456780"}, http.StatusUnauthorized},
	} {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7450/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		for k, v := range c.hdr {
			if k == "Host" {
				r.Host = v
			} else {
				r.Header.Set(k, v)
			}
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != c.status {
			t.Errorf("%s: HTTP %d %q, want %d", c.name, w.Code, w.Body.String(), c.status)
		}
	}
	if evs, _ := es.Read(context.Background(), "victim"); len(evs) != 0 {
		t.Fatalf("refused requests appended %d envelopes", len(evs))
	}
	if code, a := post(t, srv, body, map[string]string{"Authorization": auth}); code != http.StatusOK || a.Error != nil {
		t.Fatalf("the right token: HTTP %d %s, want the append answered", code, a.raw)
	}
	if _, err := bridge.NewServer(bridge.Stores{EventStore: es}, bridge.ServerOptions{Token: "short"}); err == nil {
		t.Fatal("NewServer(token of 5 characters) = nil error, want the token refused")
	}
}

// Reference: I-NET-5 — invalid UTF-8 is refused with a typed error naming the field:
// "victim-\xff", "victim-\xfe" and "victim-\x80" never become one execution; a repeated key is
// refused, never "the last wins" (two method members).
func TestBridgeRefusesInvalidUTF8AndRepeatedKeys(t *testing.T) {
	srv, es := memoryServer(t, bridge.ServerOptions{})
	for _, b := range []string{"\xff", "\xfe", "\x80"} {
		code, a := post(t, srv, appendBody("7", "victim-"+b, `{}`), nil)
		if code != http.StatusOK || a.Error == nil || a.Error.Code != bridge.CodeInvalidParams || a.Error.Data.Argument != "params.executionId" || string(a.ID) != "7" {
			t.Errorf("append(executionId victim-%q) = HTTP %d %s, want -32602 naming params.executionId, answering id 7", b, code, a.raw)
		}
	}
	page, _ := es.ListExecutionsPage(context.Background(), "", 100)
	if len(page.ExecutionIDs) != 0 {
		t.Fatalf("invalid UTF-8 stored executions %q", page.ExecutionIDs)
	}
	code, a := post(t, srv, `{"jsonrpc":"2.0","id":1,"method":"bridge.handshake","method":"eventStore.deleteExecution","params":{"executionId":"x"}}`, nil)
	if code != http.StatusOK || a.Error == nil || a.Error.Code != bridge.CodeInvalidRequest || a.Error.Data.Argument != "method" {
		t.Errorf("two method members = HTTP %d %s, want -32600 naming method", code, a.raw)
	}
	code, a = post(t, srv, appendBody("2", "dup", `{"k":1,"k":2}`), nil)
	if code != http.StatusOK || a.Error == nil || a.Error.Code != bridge.CodeInvalidParams || a.Error.Data.Argument != "params.events[0].payload.k" {
		t.Errorf("a payload with a key twice = HTTP %d %s, want -32602 naming params.events[0].payload.k", code, a.raw)
	}
	// The client sees a typed SPI error naming the argument.
	hs := httptest.NewServer(srv)
	defer hs.Close()
	c, err := bridge.Dial(context.Background(), hs.URL, bridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallRaw(context.Background(), "eventStore.read", json.RawMessage("{\"executionId\":\"a\xffb\"}"))
	var ie *spi.InvalidArgumentError
	if !errors.As(err, &ie) || ie.Argument != "params.executionId" {
		t.Errorf("client: read(invalid UTF-8) = %v, want spi.InvalidArgumentError naming params.executionId", err)
	}
}

// Reference: I-NET-5 — nesting past the limit is refused with -32008 naming the limit, not
// "not JSON".
func TestBridgeDepthRefusalNamesTheLimit(t *testing.T) {
	srv, _ := memoryServer(t, bridge.ServerOptions{})
	deep := strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001)
	_, a := post(t, srv, appendBody("1", "deep", deep), nil)
	if a.Error == nil || a.Error.Code != bridge.CodeTooLarge || a.Error.Data.Limit != 10000 || !strings.Contains(a.Error.Message, "10000") {
		t.Fatalf("a payload nested 10 001 deep = %s, want -32008 naming the limit 10000", a.raw)
	}
}

// Reference: I-STORE-3 (value-exact) through the bridge — the store server keeps a number as
// written: past 2^64, past the double range, long fractions.
func TestBridgeKeepsNumbersExactly(t *testing.T) {
	srv, _ := memoryServer(t, bridge.ServerOptions{})
	payload := `{"big":12345678901234567890,"huge":1e400,"tiny":1e-400,"long":0.1000000000000000055511151231257827}`
	if _, a := post(t, srv, appendBody("1", "n", payload), nil); a.Error != nil {
		t.Fatalf("append: %s", a.raw)
	}
	_, a := post(t, srv, `{"jsonrpc":"2.0","id":2,"method":"eventStore.read","params":{"executionId":"n"}}`, nil)
	var got []spi.Envelope
	if err := json.Unmarshal(a.Result, &got); err != nil || len(got) != 1 || string(got[0].Payload) != payload {
		t.Fatalf("read = %s, want the payload byte for byte: %s", a.raw, payload)
	}
}

// Reference: I-NET-4 — a large answer is written as it is encoded: the bytes are those of
// json.Marshal of the whole frame, and answering a 12 MiB execution allocates about the store's
// own copy (1×: the encoder's buffer is reused from envelope to envelope), not the whole answer
// twice more (the encoded result, then the frame around it: 5.7×).
func TestBridgeStreamsLargeAnswers(t *testing.T) {
	srv, es := memoryServer(t, bridge.ServerOptions{})
	ctx := context.Background()
	const n, size = 48, 256 << 10
	chunk, _ := json.Marshal(strings.Repeat("x", size))
	for i := 0; i < n; i++ {
		ev := spi.Envelope{ID: fmt.Sprintf("e%d", i), WorkflowID: "w", ExecutionID: "big", EventType: "T", Sequence: int64(i), Timestamp: 1, Payload: chunk}
		if err := es.Append(ctx, "big", []spi.Envelope{ev}, spi.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	read := `{"jsonrpc":"2.0","id":"r","method":"eventStore.read","params":{"executionId":"big"}}`
	_, a := post(t, srv, read, nil)
	evs, _ := es.Read(ctx, "big")
	evs[0].Payload = json.RawMessage(`{"html":"<&>"}`) // json.Marshal's escaping, kept
	if err := es.DeleteExecution(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	if err := es.Append(ctx, "big", evs, spi.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	_, a = post(t, srv, read, nil)
	want, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  []spi.Envelope  `json:"result"`
	}{"2.0", json.RawMessage(`"r"`), evs})
	if !bytes.Equal(a.raw, want) {
		t.Fatalf("streamed answer differs from json.Marshal of the frame (%d vs %d bytes)", len(a.raw), len(want))
	}
	allocs := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.TotalAlloc
	}
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(read))
	r.Header.Set("Content-Type", "application/json")
	w := &discard{header: http.Header{}}
	before := allocs()
	srv.ServeHTTP(w, r)
	got := allocs() - before
	logBytes := uint64(n * len(chunk))
	if got > 3*logBytes/2 {
		t.Fatalf("answering a %d-byte log allocated %d bytes (%.1f×), want at most 1.5× (the store's copy and one envelope at a time)", logBytes, got, float64(got)/float64(logBytes))
	}
}

type discard struct{ header http.Header }

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// blockingReads is an event store whose reads wait until released, counting how many wait at once.
type blockingReads struct {
	*memory.EventStore
	inside, most atomic.Int32
	release      chan struct{}
}

func (b *blockingReads) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	n := b.inside.Add(1)
	defer b.inside.Add(-1)
	for {
		m := b.most.Load()
		if n <= m || b.most.CompareAndSwap(m, n) {
			break
		}
	}
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return b.EventStore.Read(ctx, id)
}

// Reference: I-NET-4 — at most MaxConcurrentReads large answers are built at once; a read
// waiting for its turn leaves when its client does, and the store never sees it.
func TestBridgeBoundsConcurrentReads(t *testing.T) {
	st := &blockingReads{EventStore: memory.NewEventStore(), release: make(chan struct{})}
	srv, err := bridge.NewServer(bridge.Stores{EventStore: st}, bridge.ServerOptions{MaxConcurrentReads: 2})
	if err != nil {
		t.Fatal(err)
	}
	read := `{"jsonrpc":"2.0","id":1,"method":"eventStore.read","params":{"executionId":"x"}}`
	done := make(chan struct{}, 4)
	for range 4 {
		go func() {
			post(t, srv, read, nil)
			done <- struct{}{}
		}()
	}
	for st.inside.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	// A fifth reader whose client leaves while it waits: its request returns, the store never
	// sees it.
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(read)).WithContext(ctx)
	r.Header.Set("Content-Type", "application/json")
	left := make(chan struct{})
	go func() { srv.ServeHTTP(httptest.NewRecorder(), r); close(left) }()
	cancel()
	<-left
	close(st.release)
	for range 4 {
		<-done
	}
	if m := st.most.Load(); m != 2 {
		t.Fatalf("at most %d reads ran in the store at once, want 2 (MaxConcurrentReads)", m)
	}
}

// Reference: I-NET-4 — a request declaring a body past the limit is answered at once, -32008
// naming the limit, without waiting for a byte of it.
func TestBridgeAnswersADeclaredLengthPastTheLimitAtOnce(t *testing.T) {
	srv, _ := memoryServer(t, bridge.ServerOptions{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	c, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", bridge.DefaultMaxRequestBytes+1)
	// Far past any answer's time, far short of the 30 s a server waiting for the body would take.
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a 16 MiB + 1 declared body with one byte sent: %v, want an answer before the body", err)
	}
	var a rpcAnswer
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &a); err != nil || a.Error == nil || a.Error.Code != bridge.CodeTooLarge || a.Error.Data.Limit != bridge.DefaultMaxRequestBytes || !strings.Contains(a.Error.Message, "16777216") {
		t.Fatalf("answer %s, want -32008 with data.limit %d", b, bridge.DefaultMaxRequestBytes)
	}
}

// Reference: I-NET-5 — a request the server cannot decode is refused naming the argument and the
// JSON it wants; no answer names a Go type or a Go struct of the server.
func TestBridgeErrorsNameNoGoType(t *testing.T) {
	srv, _ := memoryServer(t, bridge.ServerOptions{})
	for _, c := range []struct{ body, argument string }{
		{`{"jsonrpc":"2.0","id":1,"method":"eventStore.readRange","params":{"executionId":"x","from":1e30,"to":-1}}`, "params.from"},
		{`{"jsonrpc":"2.0","id":1,"method":"eventStore.readRange","params":{"executionId":"x","from":0,"to":18446744073709551616}}`, "params.to"},
		{`{"jsonrpc":"2.0","id":1,"method":7}`, ""},
	} {
		_, a := post(t, srv, c.body, nil)
		if a.Error == nil {
			t.Errorf("%s: answered %s, want an error", c.body, a.raw)
			continue
		}
		for _, leak := range []string{"Go ", "Params", "rpcRequest", "int64", "json:"} {
			if strings.Contains(string(a.raw), leak) {
				t.Errorf("%s: answer %s names %q, a Go name of the server", c.body, a.raw, leak)
			}
		}
		if c.argument != "" && (a.Error.Code != bridge.CodeInvalidParams && a.Error.Code != bridge.CodeInvalidArgument || !strings.Contains(string(a.raw), c.argument)) {
			t.Errorf("%s: answer %s, want an invalid-argument error naming %s", c.body, a.raw, c.argument)
		}
	}
}

// Reference: I-NET-20 — a client that stops reading a large answer gives way: once it has taken
// nothing for the budget's window while another large answer waits for the room it holds, its
// connection is closed and the other is answered whole.
func TestBridgeSlowReaderGivesWay(t *testing.T) {
	srv, es := memoryServer(t, bridge.ServerOptions{MaxAnswerBytes: 4 << 20})
	ctx := context.Background()
	chunk, _ := json.Marshal(strings.Repeat("x", 256<<10))
	for i := range 48 {
		ev := spi.Envelope{ID: fmt.Sprintf("e%d", i), WorkflowID: "w", ExecutionID: "big", EventType: "T", Sequence: int64(i), Timestamp: 1, Payload: chunk}
		if err := es.Append(ctx, "big", []spi.Envelope{ev}, spi.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	read := `{"jsonrpc":"2.0","id":1,"method":"eventStore.read","params":{"executionId":"big"}}`
	stalled, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	// A receive buffer below loopback's 64 KiB segment would stall TCP itself once it fills.
	_ = stalled.(*net.TCPConn).SetReadBuffer(128 << 10)
	fmt.Fprintf(stalled, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(read), read)
	first := make([]byte, 1)
	if _, err := io.ReadFull(stalled, first); err != nil { // its answer has begun: it holds the room
		t.Fatal(err)
	}
	took, answer, err := servetestCall(url, read)
	if err != nil {
		t.Fatalf("a read while another client stalls on the same large answer: %v", err)
	}
	var a rpcAnswer
	if err := json.Unmarshal(answer, &a); err != nil || len(a.Result) < 12<<20 {
		t.Fatalf("the second reader got %d bytes (%v), want the whole 12 MiB answer", len(answer), err)
	}
	_ = stalled.SetReadDeadline(time.Now().Add(20 * time.Second))
	n, err := io.Copy(io.Discard, stalled)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the stalled reader's connection is still open after %d bytes", n+1)
	}
	if n+1 >= int64(len(answer)) {
		t.Fatalf("the stalled reader got its whole answer (%d bytes): it was never cut", n+1)
	}
	t.Logf("the second reader was answered in %v; the stalled one was cut after %d bytes", took.Round(time.Millisecond), n+1)
}

// servetestCall posts body to url on a fresh connection and returns the answer and its time.
func servetestCall(url, body string) (time.Duration, []byte, error) {
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	resp, err := hc.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return time.Since(start), b, err
}
