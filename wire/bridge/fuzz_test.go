package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loom-kernel/loom-conform/internal/jsonstrict"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// storeDigest is the whole content of a memory event store and branch registry, as text.
func storeDigest(t *testing.T, es *memory.EventStore) string {
	ctx := context.Background()
	var b strings.Builder
	cursor := ""
	for {
		page, err := es.ListExecutionsPage(ctx, cursor, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range page.ExecutionIDs {
			evs, _ := es.Read(ctx, id)
			j, _ := json.Marshal(evs)
			b.WriteString(id + "=" + string(j) + "\n")
		}
		if page.Next == "" {
			return b.String()
		}
		cursor = page.Next
	}
}

// Reference: I-NET-5 — the store bridge's request decoder, fed anything: it never
// panics, always answers one JSON-RPC frame that is itself strict JSON, accepts only valid UTF-8
// with no repeated key, and a refused request changes nothing in the store (no partial effect).
func FuzzServerRequest(f *testing.F) {
	for _, s := range []string{
		appendBody("1", "x", `{"a":[1,2,{"b":null}]}`), appendBody("2", "x\xff", `{}`), appendBody("3", "y", `{"k":1,"k":2}`),
		`{"jsonrpc":"2.0","id":1,"method":"bridge.handshake"}`, `{"jsonrpc":"2.0","id":1,"method":"eventStore.read","method":"eventStore.append"}`,
		`{"jsonrpc":"2.0","id":1,"method":"eventStore.deleteExecution","params":{"executionId":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"branchRegistry.register","params":{"branch":{"id":"b","parentId":"","forkSequence":0}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"durableStateStore.set","params":{"key":"k","value":{"n":1e400}}}`,
		`[{"jsonrpc":"2.0"}]`, `{"jsonrpc":"2.0","id":`, "\xef\xbb\xbf{}", strings.Repeat("[", 64),
	} {
		f.Add([]byte(s))
	}
	es := memory.NewEventStore()
	srv, err := bridge.NewServer(bridge.Stores{EventStore: es, BranchRegistry: memory.NewBranchRegistry()}, bridge.ServerOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		before := storeDigest(t, es)
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := &recorder{header: http.Header{}}
		srv.ServeHTTP(w, r)
		out := w.body.Bytes()
		if err := jsonstrict.Check(out, jsonstrict.Options{}); err != nil {
			t.Fatalf("answer to %q is not strict JSON (%v): %q", body, err, out)
		}
		var a struct {
			Result json.RawMessage `json:"result"`
			Error  *bridge.RPCError
		}
		if err := json.Unmarshal(out, &a); err != nil || (a.Error == nil) == (a.Result == nil) {
			t.Fatalf("answer to %q = %q: want exactly one of result and error", body, out)
		}
		accepted := a.Error == nil
		if accepted && (!utf8.Valid(body) || jsonstrict.Check(body, jsonstrict.Options{}) != nil) {
			t.Fatalf("accepted %q: not strict JSON (invalid UTF-8, a repeated key or too deep)", body)
		}
		if !accepted && storeDigest(t, es) != before {
			t.Fatalf("refused %q (%s) but the store changed", body, a.Error.Message)
		}
	})
}

type recorder struct {
	header http.Header
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(p []byte) (int, error) { return r.body.Write(p) }
func (r *recorder) WriteHeader(int)             {}

// roundTripper answers every request with *body (a fake bridge on the wire).
type roundTripper struct{ body *[]byte }

func (rt roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &req)
	body := bytes.ReplaceAll(*rt.body, []byte("$ID"), req.ID)
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Body: io.NopCloser(bytes.NewReader(body)), Header: http.Header{}, Request: r}, nil
}

// Reference: I-BRIDGE-4, I-NET-5 — the client's response decoder, fed anything a bridge may
// answer: never a panic; an answer it accepts is strict JSON (valid UTF-8, no repeated key) that
// matches the method's schema.
func FuzzClientResponse(f *testing.F) {
	env := `{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":1,"payload":{"v":"\u00e9"}}`
	for _, s := range []string{`{"jsonrpc":"2.0","id":$ID,"result":[` + env + `]}`, `{"jsonrpc":"2.0","id":$ID,"result":[],"result":[]}`,
		"{\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":[{\"id\":\"\xff\"}]}", `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32003,"message":"nf"}}`, `nul`} {
		f.Add([]byte(s))
	}
	var answer []byte
	c, err := bridge.NewClient("http://127.0.0.1:1/", bridge.ClientOptions{HTTPClient: &http.Client{Transport: roundTripper{&answer}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		answer = body
		res, err := c.CallRaw(context.Background(), "eventStore.read", json.RawMessage(`{"executionId":"x"}`))
		if err == nil && (!utf8.Valid(res) || jsonstrict.Check(res, jsonstrict.Options{}) != nil) {
			t.Fatalf("CallRaw accepted %q: result %q is not strict JSON", body, res)
		}
	})
}
