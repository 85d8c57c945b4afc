package carrier

import (
	"bytes"
	"encoding/json"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
)

// answer posts body to the carrier and decodes the JSON-RPC answer.
func answer(t *testing.T, c *Carrier, body string) Response {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7451/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	c.ServeHTTP(w, r)
	var resp Response
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		t.Fatalf("answer %q: %v", w.Body.String(), err)
	}
	return resp
}

func errData(e *Response) (kind, field string, limit int) {
	var d struct {
		Kind  string `json:"kind"`
		Field string `json:"field"`
		Limit int    `json:"limit"`
	}
	if e.Error != nil {
		_ = json.Unmarshal(e.Error.Data, &d)
	}
	return d.Kind, d.Field, d.Limit
}

// Reference: I-NET-6 — the reference kernel's numbers are IEEE doubles (DESIGN §3.3): a number
// in params that model cannot hold exactly (1e400 overflows, 12345678901234567890 would read
// back as 12345678901234567000) is refused with a typed error naming the field, never recorded as
// null or rounded; nothing is appended.
func TestWireRefusesNumbersTheKernelWouldChange(t *testing.T) {
	store := memory.NewEventStore()
	c, _, err := NewProfile(store, true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ input, field, shows string }{
		{`1e400`, "input", "overflows"},
		{`{"n":12345678901234567890}`, "input.n", "12345678901234567000"},
		{`[1,9007199254740993]`, "input[1]", "9007199254740992"},
		{`{"tiny":1e-400}`, "input.tiny", "underflows"},
	} {
		resp := answer(t, c, `{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":"f","executionId":"num","input":`+tc.input+`}}`)
		kind, field, _ := errData(&resp)
		if resp.Error == nil || resp.Error.Code != CodeInvalidParams || kind != "number" || field != tc.field || !strings.Contains(resp.Error.Message, tc.shows) {
			t.Errorf("start(input %s) = %+v, want -32602 kind number naming %s and saying %q", tc.input, resp.Error, tc.field, tc.shows)
		}
	}
	// What a double holds is accepted as written, 2^53 + 2 and long-but-exact fractions included.
	resp := answer(t, c, `{"jsonrpc":"2.0","id":2,"method":"execution.start","params":{"flowId":"f","executionId":"num-ok","input":{"a":9007199254740994,"b":0.1,"c":1e21,"d":-0}}}`)
	if resp.Error != nil {
		t.Fatalf("start(exact doubles) = %v", resp.Error)
	}
	if evs, _ := store.Read(testCtx(t), "num"); len(evs) != 0 {
		t.Fatalf("refused starts appended %d envelopes", len(evs))
	}
}

// Reference: I-NET-5 — invalid UTF-8 is refused naming the field; a repeated key is refused,
// never "the last wins" (two method members do not run the second).
func TestWireRefusesInvalidUTF8AndRepeatedKeys(t *testing.T) {
	store := memory.NewEventStore()
	c, _, err := NewProfile(store, true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"\xff", "\xfe", "\x80"} {
		resp := answer(t, c, `{"jsonrpc":"2.0","id":3,"method":"execution.start","params":{"flowId":"f","executionId":"victim-`+b+`"}}`)
		kind, field, _ := errData(&resp)
		if resp.Error == nil || resp.Error.Code != CodeInvalidParams || kind != "utf8" || field != "executionId" || string(resp.ID) != "3" {
			t.Errorf("start(executionId victim-%q) = %+v (id %s), want -32602 kind utf8 naming executionId, answering id 3", b, resp.Error, resp.ID)
		}
	}
	resp := answer(t, c, `{"jsonrpc":"2.0","id":4,"method":"wire.handshake","method":"execution.cancel","params":{"executionId":"x"}}`)
	kind, field, _ := errData(&resp)
	if resp.Error == nil || resp.Error.Code != CodeInvalidRequest || kind != "duplicate-key" || field != "method" {
		t.Errorf("two method members = %+v, want -32600 kind duplicate-key naming method", resp.Error)
	}
	resp = answer(t, c, `{"jsonrpc":"2.0","id":5,"method":"execution.start","params":{"flowId":"f","input":{"a":1,"a":2}}}`)
	if kind, field, _ = errData(&resp); resp.Error == nil || kind != "duplicate-key" || field != "input.a" {
		t.Errorf("an input with a key twice = %+v, want kind duplicate-key naming input.a", resp.Error)
	}
	page, _ := store.ListExecutionsPage(testCtx(t), "", 10)
	if len(page.ExecutionIDs) != 0 {
		t.Fatalf("refused requests created executions %q", page.ExecutionIDs)
	}
}

// Reference: I-NET-5 — nesting past the limit is refused naming the limit.
func TestWireDepthRefusalNamesTheLimit(t *testing.T) {
	c, _, err := NewProfile(memory.NewEventStore(), true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	resp := answer(t, c, `{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":"f","input":`+deep+`}}`)
	kind, _, limit := errData(&resp)
	if resp.Error == nil || resp.Error.Code != CodeTooLarge || kind != "depth" || limit != 10000 || !strings.Contains(resp.Error.Message, "10000") {
		t.Fatalf("an input nested 10 001 deep = %+v, want -32008 kind depth naming the limit 10000", resp.Error)
	}
}

// Reference: I-NET-1, I-NET-2 — the kernel wire refuses what a page in a browser can send (text/plain, a
// rebinding Host, another site's Origin) and, with a token, a call without it; the clients carry
// the token.
func TestWireRefusesCrossSiteRequests(t *testing.T) {
	const tok = "wire-test-token-0123456789"
	c, _, err := NewProfile(memory.NewEventStore(), true, Options{Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"wire.handshake"}`
	for _, tc := range []struct {
		name, ct, host, origin, auth string
		status                       int
	}{
		{"text/plain", "text/plain", "127.0.0.1:7451", "", "Bearer " + tok, http.StatusUnsupportedMediaType},
		{"a rebinding Host", "application/json", "attacker.example:7451", "", "Bearer " + tok, http.StatusForbidden},
		{"another site's Origin", "application/json", "127.0.0.1:7451", "https://attacker.example", "Bearer " + tok, http.StatusForbidden},
		{"no token", "application/json", "127.0.0.1:7451", "", "", http.StatusUnauthorized},
		{"the token", "application/json", "127.0.0.1:7451", "", "Bearer " + tok, http.StatusOK},
		{"the stream form with the token", ContentTypeStream, "localhost:7451", "", "Bearer " + tok, http.StatusOK},
	} {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7451/", strings.NewReader(body))
		r.Host = tc.host
		r.Header.Set("Content-Type", tc.ct)
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if tc.auth != "" {
			r.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		if w.Code != tc.status {
			t.Errorf("%s: HTTP %d %q, want %d", tc.name, w.Code, w.Body.String(), tc.status)
		}
	}
	srv := httptest.NewServer(c)
	defer srv.Close()
	cl := NewClient(srv.URL, 10*time.Second)
	defer cl.Close()
	if err := cl.Call(testCtx(t), MethodHandshake, map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("a client without the token: %v, want HTTP 401", err)
	}
	cl.Token = tok
	if err := cl.Call(testCtx(t), MethodHandshake, map[string]any{}, nil); err != nil {
		t.Fatalf("a client with the token: %v", err)
	}
}

// Reference: I-NET-5 — a chunk of the streaming form is held to the same rules: invalid UTF-8
// in a chunk is refused, and nothing of it is appended.
func TestWireStreamChunkIsStrict(t *testing.T) {
	cl, _, _, store := served(t, Options{})
	ctx := testCtx(t)
	var d struct {
		ExecutionID string `json:"executionId"`
		Driver      string `json:"driver"`
	}
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "stream-strict"}, &d); err != nil {
		t.Fatal(err)
	}
	before, _ := store.Read(ctx, d.ExecutionID)
	params, _ := json.Marshal(map[string]any{"executionId": d.ExecutionID, "driver": d.Driver, "args": map[string]any{"eventType": "token"}})
	req, _ := json.Marshal(Request{JSONRPC: "2.0", ID: json.RawMessage(`1`), Method: "syscall.stream", Params: params})
	out, err := cl.Post(ctx, ContentTypeStream, []byte(string(req)+"\n\"ok\"\n\"bad\xff\"\n\"never\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var last Response
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Error == nil || !strings.Contains(last.Error.Message, "UTF-8") {
		t.Fatalf("stream with an invalid chunk: final line %q, want an error naming UTF-8", lines[len(lines)-1])
	}
	after, _ := store.Read(ctx, d.ExecutionID)
	if len(after) != len(before)+1 {
		t.Fatalf("stream appended %d envelopes, want 1 (the chunk before the invalid one)", len(after)-len(before))
	}
}

// Reference: I-NET-4 — a line of the streaming form is at most MaxStreamLineBytes: a longer chunk
// is refused naming the limit, and nothing of it is appended.
func TestWireStreamLineLimit(t *testing.T) {
	cl, _, _, store := served(t, Options{})
	ctx := testCtx(t)
	var d struct {
		ExecutionID string `json:"executionId"`
		Driver      string `json:"driver"`
	}
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "stream-long"}, &d); err != nil {
		t.Fatal(err)
	}
	before, _ := store.Read(ctx, d.ExecutionID)
	params, _ := json.Marshal(map[string]any{"executionId": d.ExecutionID, "driver": d.Driver, "args": map[string]any{"eventType": "token"}})
	req, _ := json.Marshal(Request{JSONRPC: "2.0", ID: json.RawMessage(`1`), Method: "syscall.stream", Params: params})
	long := `"` + strings.Repeat("x", MaxStreamLineBytes) + `"`
	out, err := cl.Post(ctx, ContentTypeStream, []byte(string(req)+"\n"+long+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if !strings.Contains(lines[len(lines)-1], "1048576") {
		t.Fatalf("a chunk past the line limit: final line %q, want the limit named", lines[len(lines)-1])
	}
	if after, _ := store.Read(ctx, d.ExecutionID); len(after) != len(before) {
		t.Fatalf("the refused chunk appended %d envelopes", len(after)-len(before))
	}
}

// A stream that ends before its body does (a line past the limit) closes its connection: the
// server never reads a next request from a half-read body, which made net/http panic ("invalid
// concurrent Body.Read call") on the reused connection.
func TestWireStreamEndsCleanly(t *testing.T) {
	c, _, err := NewProfile(memory.NewEventStore(), true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	srv := httptest.NewUnstartedServer(c)
	srv.Config.ErrorLog = log.New(&logged, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)
	cl := NewClient(srv.URL, 20*time.Second)
	t.Cleanup(cl.Close)
	ctx := testCtx(t)
	var d Attached
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "stream-end"}, &d); err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(map[string]any{"executionId": d.ExecutionID, "driver": d.Driver, "args": map[string]any{"eventType": "token"}})
	req, _ := json.Marshal(Request{JSONRPC: "2.0", ID: json.RawMessage(`1`), Method: "syscall.stream", Params: params})
	for range 3 {
		if _, err := cl.Post(ctx, ContentTypeStream, []byte(string(req)+"\n\""+strings.Repeat("x", MaxStreamLineBytes)+"\"\n\"after\"\n")); err != nil {
			t.Fatal(err)
		}
		if err := cl.Call(ctx, MethodGetState, map[string]any{"executionId": d.ExecutionID}, nil); err != nil {
			t.Fatal(err)
		}
	}
	srv.Close()
	if strings.Contains(logged.String(), "panic") {
		t.Errorf("wire/stream-ends-cleanly [I-NET-4]: the server logged a panic:\n%s", logged.String())
	}
}

// Reference: I-NET-5 — a refused request's id is answered only when it is a string or a number:
// an object or an array the client sent as its id is answered as null, never echoed.
func TestWireNeverEchoesAnObjectID(t *testing.T) {
	c, _, err := NewProfile(memory.NewEventStore(), true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":{"evil":"<script>"},"method":"wire.handshake"}`,
		`{"jsonrpc":"1.0","id":{"evil":1},"method":"wire.handshake"}`,
		`{"jsonrpc":"2.0","id":[1,2],"method":"wire.handshake"}`,
		`{"jsonrpc":"2.0","id":true,"method":"wire.handshake"}`,
	} {
		resp := answer(t, c, body)
		if resp.Error == nil || string(resp.ID) != "null" {
			t.Errorf("%s: answered id %s (%+v), want an error with id null", body, resp.ID, resp.Error)
		}
	}
	if resp := answer(t, c, `{"jsonrpc":"2.0","id":"ok","method":"wire.handshake"}`); string(resp.ID) != `"ok"` {
		t.Errorf("a string id answered as %s", resp.ID)
	}
}

// Reference: I-NET-4 — a request declaring a body past the limit is answered at once, -32008
// kind too-large naming the limit; I-NET-5 — an ill-typed request names the field and the JSON it
// wants, never a Go type of the kernel.
func TestWireRefusalsNameTheLimitAndNoGoType(t *testing.T) {
	c, _, err := NewProfile(memory.NewEventStore(), true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7451/", strings.NewReader("{"))
	r.Header.Set("Content-Type", "application/json")
	r.ContentLength = 1 << 30
	w := httptest.NewRecorder()
	c.ServeHTTP(w, r) // it never reads the body: a wait for 1 GiB would be an EOF error instead
	var resp Response
	_ = json.Unmarshal(w.Body.Bytes(), &resp)
	if kind, _, limit := errData(&resp); resp.Error == nil || resp.Error.Code != CodeTooLarge || kind != "too-large" || limit != 16<<20 {
		t.Errorf("a declared 1 GiB body: %s, want -32008 kind too-large with data.limit 16777216", w.Body.String())
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":"f","budget":{"tokens":"ten"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":["f"]}}`,
		`{"jsonrpc":"2.0","id":1,"method":7}`,
		`{"jsonrpc":"2.0","id":1,"method":"execution.getState","params":{"executionId":"x","includeLog":"yes"}}`,
	} {
		resp := answer(t, c, body)
		raw, _ := json.Marshal(resp)
		if resp.Error == nil {
			t.Errorf("%s: answered %s, want an error", body, raw)
		}
		for _, leak := range []string{"Go ", "int64", "float64", "map[", "Request.", "json:", "kernel."} {
			if strings.Contains(string(raw), leak) {
				t.Errorf("%s: answer %s names %q, a Go name of the kernel", body, raw, leak)
			}
		}
	}
}

// Reference: I-NET-4 — execution.getState's log is written as it is encoded: the answer over HTTP
// is byte for byte HandleRPC's (json.Marshal of the frame), escaping and an empty log included.
func TestWireStateLogStreamedAsMarshalled(t *testing.T) {
	store := memory.NewEventStore()
	c, _, err := NewProfile(store, true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := answer(t, c, `{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":"f","executionId":"log"}}`)
	var d struct {
		Driver string `json:"driver"`
	}
	_ = json.Unmarshal(start.Result, &d)
	emit := `{"jsonrpc":"2.0","id":2,"method":"syscall.emit","params":{"executionId":"log","driver":"` + d.Driver + `","args":{"eventType":"progress","payload":{"html":"<&>","n":1.50}}}}`
	if resp := answer(t, c, emit); resp.Error != nil {
		t.Fatal(resp.Error)
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":"s<1>","method":"execution.getState","params":{"executionId":"log","includeLog":true}}`,
		`{"jsonrpc":"2.0","id":3,"method":"execution.getState","params":{"executionId":"log"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"execution.getState","params":{"executionId":"none","includeLog":true}}`,
	} {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7451/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		req, _ := DecodeRequest([]byte(body))
		want, _ := json.Marshal(c.HandleRPC(r.Context(), req))
		if w.Body.String() != string(want) {
			t.Errorf("%s:\nHTTP answer %s\nwant        %s", body, w.Body.String(), want)
		}
	}
}
