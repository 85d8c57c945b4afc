package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify/certifytest"
	"github.com/loom-kernel/loom-conform/internal/servetest"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// starveTarget is a served binary and the calls a fresh client makes beside the attacks.
type starveTarget struct {
	name        string
	args        []string
	contentType string // of the open streams
	// setup loads a 1-event execution and a large one, returns the calls: a handshake, a read of the
	// small execution, a read of the large one (what slow readers ask), and the first lines of n
	// open streams.
	setup func(t *testing.T, s *servetest.Served, n int) (handshake, small, large string, streams []string)
}

// patience is how long a fresh client's call may take beside an attack before the test calls it
// unanswered: far past an answer's time on a loaded machine, and short of the 28.5–91 s and the
// "never" the servers took when a few slow clients held what every call waited for.
const patience = 20 * time.Second

// Reference: I-NET-4, I-NET-20 — no client that is not sending or not reading holds what others
// wait for: beside 4 uploads declaring 16 MiB and trickling a byte a second, 64 open streams, and 12
// clients reading a 12 MiB answer at 4 KB/s, a fresh client's handshake and its read of a 1-event
// execution are answered, on serve-store (memory, sqlite) and serve-kernel. The latencies are
// logged (docs/bridge.md, "Running it safely"), never compared with a clock.
func TestServersAnswerBesideStarvingClients(t *testing.T) {
	bin := certifytest.Binary(t)
	store := func(backend string) starveTarget {
		return starveTarget{name: "serve-store " + backend, args: []string{"serve-store", "--backend", backend}, contentType: "application/json", setup: storeSetup}
	}
	for _, target := range []starveTarget{store("memory"), store("sqlite"),
		{name: "serve-kernel", args: []string{"serve-kernel"}, contentType: carrier.ContentTypeStream, setup: kernelSetup}} {
		t.Run(target.name, func(t *testing.T) {
			s, err := servetest.Start(bin, target.args...)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop()
			handshake, small, large, streams := target.setup(t, s, 64)
			for _, attack := range []struct {
				name  string
				press func(ctx context.Context) *servetest.Pressure
				ready func(p *servetest.Pressure) bool
			}{
				{"4 trickling 16 MiB uploads", func(ctx context.Context) *servetest.Pressure {
					return servetest.TrickleUploads(ctx, s.Addr, 4, 16<<20, time.Second)
				}, func(p *servetest.Pressure) bool { return p.Open.Load() == 4 }},
				{"64 open streams", func(ctx context.Context) *servetest.Pressure {
					return servetest.OpenBodies(ctx, s.Addr, target.contentType, streams)
				}, func(p *servetest.Pressure) bool { return p.Open.Load() == 64 }},
				{"12 slow readers of a 12 MiB answer", func(ctx context.Context) *servetest.Pressure {
					return servetest.SlowReaders(ctx, s.Addr, large, 12, 4<<10)
				}, func(p *servetest.Pressure) bool { return p.Open.Load() == 12 && p.Moved.Load() > 0 }},
			} {
				p := attack.press(context.Background())
				for i := 0; i < 200 && !attack.ready(p); i++ { // a bounded wait for the attack to settle
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(2 * time.Second) // and for a stalled client's window to pass
				var took []string
				for _, call := range []struct{ name, body string }{{"handshake", handshake}, {"1-event read", small}} {
					d, answer, err := servetest.Call(s.URL, call.body, patience)
					if err != nil {
						t.Errorf("%s [I-NET-4, I-NET-20]: %s beside %s = %v (%s), want it answered", target.name, call.name, attack.name, err, answer)
					}
					took = append(took, fmt.Sprintf("%s %v", call.name, d.Round(time.Millisecond)))
				}
				p.Stop()
				t.Logf("%s beside %s: %s", target.name, attack.name, strings.Join(took, ", "))
			}
		})
	}
}

func rpc(method string, params any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	return string(b)
}

// bigPayload is 256 KiB of JSON: 48 of them make the 12 MiB execution.
func bigPayload() json.RawMessage {
	b, _ := json.Marshal(strings.Repeat("x", 256<<10))
	return b
}

func storeSetup(t *testing.T, s *servetest.Served, n int) (string, string, string, []string) {
	t.Helper()
	ev := func(exec string, seq int, payload json.RawMessage) map[string]any {
		return map[string]any{"id": fmt.Sprintf("%s-%d", exec, seq), "workflowId": "w", "executionId": exec, "eventType": "T", "sequence": seq, "timestamp": 1, "payload": payload}
	}
	mustCall(t, s.URL, rpc("eventStore.append", map[string]any{"executionId": "small", "events": []any{ev("small", 0, json.RawMessage(`{}`))}}))
	big := bigPayload()
	for i := range 48 {
		mustCall(t, s.URL, rpc("eventStore.append", map[string]any{"executionId": "big", "events": []any{ev("big", i, big)}}))
	}
	streams := make([]string, n)
	for i := range streams { // a chunked append whose body stops mid-way
		streams[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eventStore.append","params":{"executionId":"open-%d","events":[`, i, i)
	}
	return rpc("bridge.handshake", map[string]any{}), rpc("eventStore.read", map[string]any{"executionId": "small"}),
		rpc("eventStore.read", map[string]any{"executionId": "big"}), streams
}

func kernelSetup(t *testing.T, s *servetest.Served, n int) (string, string, string, []string) {
	t.Helper()
	ctx := context.Background()
	cl := carrier.NewClient(s.URL, time.Minute)
	defer cl.Close()
	start := func(id string) string {
		var r struct {
			Driver string `json:"driver"`
		}
		if err := cl.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "starve", "executionId": id}, &r); err != nil {
			t.Fatal(err)
		}
		return r.Driver
	}
	start("small")
	driver := start("big")
	big := bigPayload()
	for range 48 {
		if err := cl.Call(ctx, "syscall.emit", map[string]any{"executionId": "big", "driver": driver, "args": map[string]any{"eventType": "progress", "payload": big}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	streams := make([]string, n)
	for i := range streams { // a stream that sent one chunk and waits for its next
		id := fmt.Sprintf("stream-%d", i)
		req := rpc("syscall.stream", map[string]any{"executionId": id, "driver": start(id), "args": map[string]any{"eventType": "token"}})
		streams[i] = req + "\n\"first\"\n"
	}
	return rpc(carrier.MethodHandshake, map[string]any{}), rpc(carrier.MethodGetState, map[string]any{"executionId": "small", "includeLog": true}),
		rpc(carrier.MethodGetState, map[string]any{"executionId": "big", "includeLog": true}), streams
}

func mustCall(t *testing.T, url, body string) {
	t.Helper()
	if _, answer, err := servetest.Call(url, body, time.Minute); err != nil {
		t.Fatalf("%s: %v (%s)", body[:min(len(body), 120)], err, answer)
	}
}
