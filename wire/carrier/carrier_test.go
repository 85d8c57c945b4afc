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
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loom-kernel/loom-conform/internal/jsonstrict"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
)

// Reference: ADR 0026 A2 — the method table is generated from the syscall table: a syscall added
// to a copy of the table is a method, with its partition, and the carrier serves it.
func TestDerivedMethodsFollowTable(t *testing.T) {
	table := append(manifest.Syscalls(), manifest.Syscall{Name: "teleport", Since: "1.4.0", Kind: manifest.Channel, Feature: ""})
	ms := DeriveMethods(table)
	found := false
	for _, m := range ms {
		if m.Name == "syscall.teleport" {
			found = true
			if m.Kind != manifest.Channel || m.Syscall != "teleport" {
				t.Errorf("wire/derived-methods [A26.wire.partition]: DeriveMethods(+teleport) = %+v, want kind channel, syscall teleport", m)
			}
		}
	}
	if !found {
		t.Fatalf("wire/derived-methods [A26.wire.derived]: DeriveMethods(+teleport) = %v, want syscall.teleport among them", ms)
	}
	if got, want := len(ms), len(DeriveMethods(manifest.Syscalls()))+1; got != want {
		t.Errorf("wire/derived-methods [A26.wire.derived]: len(DeriveMethods(+teleport)) = %d, want %d", got, want)
	}
	var unary, channel int
	for _, m := range DeriveMethods(manifest.Syscalls()) {
		switch m.Kind {
		case manifest.Unary:
			unary++
		case manifest.Channel:
			channel++
		}
	}
	if unary != 11 || channel != 2 {
		t.Errorf("wire/derived-methods [A26.wire.partition]: unary/channel methods = %d/%d, want 11/2", unary, channel)
	}
	for _, m := range manifest.CarrierMethods() {
		if _, ok := lookup(ms, m); !ok {
			t.Errorf("wire/derived-methods [A26.carrier.methods]: %s missing", m)
		}
	}
	// the carrier built on the extended table serves the new method (the kernel, which has no
	// such syscall, refuses the call itself: not a method-not-found from the carrier)
	store := memory.NewEventStore()
	rt, _ := kernel.New(ProfileConfig(store, true, ProfileRings(), kernel.Hooks{}))
	c, err := New(rt, store, Options{Syscalls: table})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lookup(c.Handshake().Methods, "syscall.teleport"); !ok {
		t.Errorf("wire/derived-methods [A26.wire.derived]: handshake methods lack syscall.teleport")
	}
	resp := c.HandleBytes(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"syscall.teleport","params":{"executionId":"x","driver":"d"}}`))
	if resp.Error == nil || resp.Error.Code == CodeMethodNotFound {
		t.Errorf("wire/derived-methods [A26.wire.derived]: syscall.teleport = %+v, want served (fenced: no driver), not method-not-found", resp.Error)
	}
}

func lookup(ms []Method, name string) (Method, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// Reference: ADR 0026 A3 — a client that disconnects mid-step and reconnects finishes the
// execution with no effect run twice (I-WIRE-4).
func TestDisconnectMidStepRunsEffectOnce(t *testing.T) {
	store := memory.NewEventStore()
	release := make(chan struct{})
	var runs atomic.Int32
	tools := ProfileTools()
	tools["slow"] = Tool{Fn: func(_ *kernel.EffectContext, in json.RawMessage) (any, error) {
		runs.Add(1)
		<-release
		return in, nil
	}}
	cfg := ProfileConfig(store, true, ProfileRings(), kernel.Hooks{})
	rings := ProfileRings()
	rings.Allowed["slow"] = true
	cfg.Effects = rings.Wrap(tools)
	rt, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(rt, store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(c)
	defer srv.Close()
	ctx := testCtx(t)
	cl := NewClient(srv.URL, 20*time.Second)
	var a Attached
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "slow", "executionId": "e1", "input": 1}, &a); err != nil {
		t.Fatal(err)
	}
	d := &Driver{C: cl, ExecutionID: "e1", Token: a.Driver}
	if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"first","toolId":"echo"},"input":1}`)); err != nil {
		t.Fatal(err)
	}
	// the driver's connection drops while the slow effect runs
	cut, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, _, err := d.Syscall(cut, "execute", json.RawMessage(`{"task":{"id":"slow","toolId":"slow"},"input":2}`))
		errc <- err
	}()
	for runs.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the cut call succeeded; want a transport error")
	}
	// a second driver is fenced while the first holds the seat
	if err := cl.Call(ctx, MethodAttach, map[string]any{"executionId": "e1"}, nil); !isCode(err, CodeFenced) {
		t.Errorf("wire/disconnect-mid-step [I-WIRE-3]: attach by another driver = %v, want fenced", err)
	}
	// reconnect with the token and re-drive from the top while the effect is still running
	cl2 := NewClient(srv.URL, 20*time.Second)
	if err := cl2.Call(ctx, MethodAttach, map[string]any{"executionId": "e1", "driver": a.Driver}, &a); err != nil {
		t.Fatalf("reconnect: %v", err)
	}
	d2 := &Driver{C: cl2, ExecutionID: "e1", Token: a.Driver}
	go func() { time.Sleep(20 * time.Millisecond); close(release) }()
	for _, args := range []string{`{"task":{"id":"first","toolId":"echo"},"input":1}`, `{"task":{"id":"slow","toolId":"slow"},"input":2}`, `{"task":{"id":"last","toolId":"echo"},"input":3}`} {
		if _, _, err := d2.Syscall(ctx, "execute", json.RawMessage(args)); err != nil {
			t.Fatalf("re-drive %s: %v", args, err)
		}
	}
	var done Attached
	if err := cl2.Call(ctx, MethodComplete, map[string]any{"executionId": "e1", "driver": d2.Token, "output": "ok"}, &done); err != nil || done.Status != "completed" {
		t.Fatalf("complete = %+v, %v", done, err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("wire/disconnect-mid-step [A26.wire.kernel-authoritative]: the slow effect ran %d times, want 1", n)
	}
	run, _ := State(ctx, cl2, "e1")
	if n := StepStarts(run.Log); n["slow"] != 1 || n["first"] != 1 || n["last"] != 1 {
		t.Errorf("wire/disconnect-mid-step [I-WIRE-4]: STEP_STARTED per step = %v, want each once", n)
	}
	// the old token is now stale only if rotated; the holder's token still names the seat, but the
	// run has ended: a late call by anyone is refused
	if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"late","toolId":"echo"},"input":1}`)); !isCode(err, CodeFenced) {
		t.Errorf("wire/disconnect-mid-step [I-WIRE-3]: a call after the end = %v, want fenced", err)
	}
}

func isCode(err error, code int) bool {
	var ce *CallError
	return errors.As(err, &ce) && ce.RPC.Code == code
}

// Reference: ADR 0026 consequences, spec §1 G2 — with the carrier mounted and no wire client
// connected, in-process executions append byte-identical logs.
func TestUnwiredIdentical(t *testing.T) {
	run := func(mount bool) []byte {
		store := memory.NewEventStore()
		rt, err := kernel.New(ProfileConfig(store, true, ProfileRings(), kernel.Hooks{}))
		if err != nil {
			t.Fatal(err)
		}
		if mount {
			c, err := New(rt, store, Options{})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(c)
			defer srv.Close()
		}
		k := script(t, "approve")
		r, err := RunInProcess(testCtx(t), rt, store, "g2", k.Script, k.Driver)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		return b
	}
	without, with := run(false), run(true)
	if string(without) != string(with) {
		t.Errorf("wire/unwired-identical [A26.wire.unwired-identical]: in-process run with the carrier mounted differs:\nwithout %s\nwith    %s", without, with)
	}
}

// Bad input gets a typed error naming what was wrong, never a panic, never an append.
func TestBadInputTyped(t *testing.T) {
	cl, c, _, store := served(t, Options{MaxRequestBytes: 4096})
	ctx := testCtx(t)
	var a Attached
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "f", "executionId": "e", "input": 1}, &a); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		body  string
		code  int
		field string
	}{
		{`nope`, CodeParseError, ""},
		{`[]`, CodeInvalidRequest, ""},
		{`"x"`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"1.0","id":1,"method":"wire.handshake"}`, CodeInvalidRequest, "jsonrpc"},
		{`{"jsonrpc":"2.0","id":{},"method":"wire.handshake"}`, CodeInvalidRequest, "id"},
		{`{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, "method"},
		{`{"jsonrpc":"2.0","id":1,"method":"nope"}`, CodeMethodNotFound, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.start","params":[1]}`, CodeInvalidParams, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":3}}`, CodeInvalidParams, "params.flowId"},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{}}`, CodeInvalidParams, "flowId"},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":"f","executionId":"e"}}`, CodeAlreadyExists, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.getState","params":{"executionId":"ghost"}}`, CodeNotFound, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.resume","params":{"executionId":"ghost","eventType":"g"}}`, CodeNotFound, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.attach","params":{"executionId":"ghost"}}`, CodeNotFound, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.cancel","params":{"executionId":"ghost"}}`, CodeNotFound, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"e","driver":"` + a.Driver + `","args":[]}}`, CodeInvalidParams, "args"},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.emit","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"eventType":"x","metadata":{}}}}`, CodeInvalidParams, "metadata"},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"task":{"id":"s","toolId":"echo","fn":1}}}}`, CodeInvalidParams, "fn"},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"e","driver":"wrong","args":{"task":{"id":"s","toolId":"echo"}}}}`, CodeFenced, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"e","driver":"wrong","args":{}}}`, CodeInvalidParams, "args.task"},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"ghost","driver":"x","args":{"task":{"id":"s","toolId":"echo"}}}}`, CodeNotFound, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.complete","params":{"executionId":"ghost","driver":"x","output":1}}`, CodeNotFound, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"task":{"id":"s"}}}}`, CodeInvalidParams, "args.task.toolId"},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"task":{"id":"s","toolId":"echo","errors":"declined"}}}}`, CodeInvalidParams, "args.task.errors"},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.decide","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"id":"d"}}}`, CodeInvalidParams, "args.choice"},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.emit","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"eventType":"","payload":1}}}`, CodeInvalidParams, "args.eventType"},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.sleep","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"ms":-5}}}`, CodeInvalidParams, "args.ms"},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.complete","params":{"executionId":"e","driver":"` + a.Driver + `","output":1,"error":{"message":"m"}}}`, CodeInvalidParams, `"field":"error"`},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"task":{"id":"s","toolId":"nope"}}}}`, CodeSyscallError, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.receive","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"topic":"t"}}}`, CodeMethodNotFound, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.deliver","params":{"executionId":"e","topic":"t","messageId":"m"}}`, CodeMethodNotFound, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.complete","params":{"executionId":"e","driver":"` + a.Driver + `","error":{"message":""}}}`, CodeInvalidParams, "error.message"},
		{`{"jsonrpc":"2.0","id":1,"method":"wire.handshake","params":{"__proto__":{}}}`, CodeInvalidParams, "__proto__"},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":"f","budget":{"tokens":-1}}}`, CodeInvalidParams, "budget.tokens"},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":"f","budget":[5]}}`, CodeInvalidParams, "budget"},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":"f","executionId":"e","budget":{"tokens":1}}}`, CodeAlreadyExists, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.resumeAs","params":{"executionId":"e"}}`, CodeInvalidParams, "flowId"},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.resumeAs","params":{"executionId":"ghost","flowId":"f2"}}`, CodeNotFound, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.resumeAs","params":{"executionId":"e","flowId":"f2","transform":{}}}`, CodeInvalidParams, "transform"},
		{`{"jsonrpc":"2.0","id":1,"method":"execution.resumeAs","params":{"executionId":"e","flowId":"f2"}}`, CodeFenced, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.decide","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"id":"d","fails":true}}}`, CodeInvalidParams, "fails"},
		{`{"jsonrpc":"2.0","id":1,"method":"syscall.execute","params":{"executionId":"e","driver":"` + a.Driver + `","args":{"task":{"id":"s","toolId":"echo","timeoutMs":"soon"}}}}`, CodeInvalidParams, "args.task.timeoutMs"},
	}
	before, _ := store.Read(ctx, "e")
	for _, k := range cases {
		resp := c.HandleBytes(ctx, []byte(k.body))
		if resp.Error == nil || resp.Error.Code != k.code {
			t.Errorf("wire/bad-input [I-WIRE-6]: HandleBytes(%s) = %+v, want error %d", k.body, resp.Error, k.code)
			continue
		}
		if k.field != "" && !strings.Contains(resp.Error.Message+string(resp.Error.Data), k.field) {
			t.Errorf("wire/bad-input [I-WIRE-6]: HandleBytes(%s) = %q, want it to name %q", k.body, resp.Error.Message, k.field)
		}
	}
	after, _ := store.Read(ctx, "e")
	if len(after) != len(before) {
		t.Errorf("wire/bad-input [I-WIRE-6]: the log went from %d to %d envelopes", len(before), len(after))
	}
	// oversize bodies over HTTP, and a GET
	big := `{"jsonrpc":"2.0","id":1,"method":"wire.handshake","params":{"client":"` + strings.Repeat("x", 5000) + `"}}`
	resp, err := cl.Post(ctx, "application/json", []byte(big))
	if err != nil || !strings.Contains(string(resp), fmt.Sprint(CodeTooLarge)) {
		t.Errorf("wire/bad-input [I-WIRE-1]: an oversize body = %s, %v; want error %d", resp, err, CodeTooLarge)
	}
	r, err := http.Get(cl.URL())
	if err != nil || r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("wire/bad-input: GET = %v, %v; want 405", r, err)
	}
	if r != nil {
		r.Body.Close()
	}
}

// Reference: ADR 0026 A2 — the streaming form acknowledges each chunk as it is appended, before
// the next chunk is sent (I-WIRE-7).
func TestStreamAcksEachChunk(t *testing.T) {
	cl, _, _, store := served(t, Options{})
	ctx := testCtx(t)
	var a Attached
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "f", "executionId": "s", "input": 1}, &a); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, cl.URL(), pr)
	req.Header.Set("Content-Type", ContentTypeStream)
	var resp *http.Response
	var rerr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); resp, rerr = http.DefaultClient.Do(req) }()
	first, _ := json.Marshal(Request{JSONRPC: "2.0", ID: json.RawMessage(`7`), Method: "syscall.ui",
		Params: mustJSON(map[string]any{"executionId": "s", "driver": a.Driver, "args": map[string]any{"eventType": "card"}})})
	if _, err := pw.Write(append(first, '\n')); err != nil {
		t.Fatal(err)
	}
	if _, err := pw.Write([]byte(`{"n":0}` + "\n")); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if rerr != nil {
		t.Fatal(rerr)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	for i := 0; i < 3; i++ {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("ack %d: %v", i, err)
		}
		var ack Ack
		if json.Unmarshal([]byte(line), &ack) != nil || ack.Chunk != i || ack.Error != nil {
			t.Fatalf("wire/stream-incremental [I-WIRE-7]: line %d = %s, want ack of chunk %d", i, line, i)
		}
		// the chunk is in the log before the next one is written
		evs, _ := store.Read(ctx, "s")
		if last := evs[len(evs)-1]; last.EventType != "card" || string(last.Payload) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("wire/stream-incremental [I-WIRE-7]: after ack %d the log ends with %s %s", i, last.EventType, last.Payload)
		}
		if i < 2 {
			if _, err := fmt.Fprintf(pw, `{"n":%d}`+"\n", i+1); err != nil {
				t.Fatal(err)
			}
		}
	}
	pw.Close()
	line, _ := rd.ReadString('\n')
	var r Response
	if json.Unmarshal([]byte(line), &r) != nil || r.Error != nil || string(r.ID) != "7" || string(r.Result) != `{"chunks":3}` {
		t.Fatalf("wire/stream-incremental [I-WIRE-7]: final line = %s, want the response counting 3 chunks", line)
	}
}

// Reference: I-WIRE-6, I-NET-5, I-NET-6 — the request decoder never panics, refuses what is
// not a request, accepts only valid UTF-8 with no repeated key and params whose numbers the
// kernel's doubles hold exactly, and a refused request appends nothing (no partial effect).
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"wire.handshake"}`, `[]`, `{"id":null}`, `{"jsonrpc":"2.0","id":"a","method":"syscall.emit","params":{"args":{"__proto__":1}}}`, "\x00", `{"jsonrpc":"2.0","id":1e999,"method":"x"}`,
		`{"jsonrpc":"2.0","id":2,"method":"execution.start","params":{"flowId":"f","executionId":"fz","input":{"n":1e400}}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"execution.start\",\"params\":{\"flowId\":\"f\",\"executionId\":\"fz-\xff\"}}",
		`{"jsonrpc":"2.0","id":4,"method":"execution.start","method":"execution.cancel","params":{"flowId":"f","executionId":"fz"}}`} {
		f.Add([]byte(s))
	}
	store := memory.NewEventStore()
	c, _, err := NewProfile(store, true, Options{})
	if err != nil {
		f.Fatal(err)
	}
	count := func() int {
		page, _ := store.ListExecutionsPage(context.Background(), "", 1000)
		n := 0
		for _, id := range page.ExecutionIDs {
			evs, _ := store.Read(context.Background(), id)
			n += len(evs)
		}
		return n
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, e := DecodeRequest(body)
		if e == nil {
			if req.JSONRPC != "2.0" || req.Method == "" || len(req.ID) == 0 {
				t.Fatalf("DecodeRequest(%q) accepted %+v", body, req)
			}
			if !json.Valid(body) || !utf8.Valid(body) {
				t.Fatalf("DecodeRequest(%q) accepted a body that is not JSON or not UTF-8", body)
			}
			if err := jsonstrict.Check(bytes.TrimSpace(body), jsonstrict.Options{ExactDoublesIn: "params"}); err != nil {
				t.Fatalf("DecodeRequest(%q) accepted a body the strict check refuses: %v", body, err)
			}
		}
		before := count()
		resp := c.HandleBytes(context.Background(), body)
		if (resp.Error == nil) == (resp.Result == nil) {
			t.Fatalf("HandleBytes(%q) = %+v: want exactly one of result and error", body, resp)
		}
		if resp.Error != nil && resp.Error.Code == CodeInternalError {
			t.Fatalf("HandleBytes(%q) = internal error %s", body, resp.Error.Message)
		}
		if e != nil && count() != before {
			t.Fatalf("HandleBytes(%q) refused (%s) but the log changed", body, e.Message)
		}
	})
}
