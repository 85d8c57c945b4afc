package servetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// Target is a serve verb of the binary and what it is asked beside the attacks.
type Target struct {
	Name        string
	Args        []string // the verb and its flags
	ContentType string   // of its open streams
	// Setup loads a 1-event execution and a 12 MiB one and returns the calls of the siege.
	Setup func(ctx context.Context, s *Served, streams int) (Calls, error)
}

// Calls are the requests of a siege: a fresh client's handshake and read of the 1-event execution,
// the read of the large one slow readers make, and the first lines of the open streams.
type Calls struct {
	Handshake, Small, Large string
	Streams                 []string
}

// Targets are serve-store memory and sqlite, and serve-kernel.
func Targets() []Target {
	store := func(backend string) Target {
		return Target{Name: "serve-store " + backend, Args: []string{"serve-store", "--backend", backend}, ContentType: "application/json", Setup: storeSetup}
	}
	return []Target{store("memory"), store("sqlite"),
		{Name: "serve-kernel", Args: []string{"serve-kernel"}, ContentType: carrier.ContentTypeStream, Setup: kernelSetup}}
}

// Attack is one way a few clients press on a server.
type Attack struct {
	Name  string
	Press func(ctx context.Context, s *Served, c Calls) *Pressure
	Ready func(p *Pressure, c Calls) bool // it has settled
}

// Attacks are 4 uploads declaring 16 MiB and sending a byte a second, 64 open streams, and 12
// clients reading the 12 MiB answer at 4 KB/s.
func Attacks(contentType string) []Attack {
	return []Attack{
		{"4 trickling 16 MiB uploads", func(ctx context.Context, s *Served, _ Calls) *Pressure {
			return TrickleUploads(ctx, s.Addr, 4, 16<<20, time.Second)
		}, func(p *Pressure, _ Calls) bool { return p.Open.Load() == 4 }},
		{"64 open streams", func(ctx context.Context, s *Served, c Calls) *Pressure {
			return OpenBodies(ctx, s.Addr, contentType, c.Streams)
		}, func(p *Pressure, c Calls) bool { return p.Open.Load() == int64(len(c.Streams)) }},
		{"12 slow readers of a 12 MiB answer", func(ctx context.Context, s *Served, c Calls) *Pressure {
			return SlowReaders(ctx, s.Addr, c.Large, 12, 4<<10)
		}, func(p *Pressure, _ Calls) bool { return p.Open.Load() == 12 && p.Moved.Load() > 0 }},
	}
}

// Answered is a fresh client's call beside an attack: how long it took, and its error if it was
// not answered within the siege's patience.
type Answered struct {
	Attack, Call string
	Took         time.Duration
	Err          error
}

// Siege runs every attack against s in turn, and beside each, once it has settled, a fresh
// client's handshake and read of the 1-event execution, each given patience to be answered.
func Siege(s *Served, t Target, c Calls, patience time.Duration) []Answered {
	var out []Answered
	for _, a := range Attacks(t.ContentType) {
		p := a.Press(context.Background(), s, c)
		for i := 0; i < 200 && !a.Ready(p, c); i++ { // a bounded wait for the attack to settle
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(2 * time.Second) // and for a stalled client's window to pass
		for _, call := range []struct{ name, body string }{{"handshake", c.Handshake}, {"1-event read", c.Small}} {
			took, answer, err := Call(s.URL, call.body, patience)
			if err != nil {
				err = fmt.Errorf("%w (%s)", err, clip(answer))
			}
			out = append(out, Answered{Attack: a.Name, Call: call.name, Took: took, Err: err})
		}
		p.Stop()
	}
	return out
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

func mustCall(url, body string) error {
	if _, answer, err := Call(url, body, time.Minute); err != nil {
		return fmt.Errorf("%s: %v (%s)", body[:min(len(body), 120)], err, clip(answer))
	}
	return nil
}

func storeSetup(_ context.Context, s *Served, n int) (Calls, error) {
	ev := func(exec string, seq int, payload json.RawMessage) map[string]any {
		return map[string]any{"id": fmt.Sprintf("%s-%d", exec, seq), "workflowId": "w", "executionId": exec, "eventType": "T", "sequence": seq, "timestamp": 1, "payload": payload}
	}
	if err := mustCall(s.URL, rpc("eventStore.append", map[string]any{"executionId": "small", "events": []any{ev("small", 0, json.RawMessage(`{}`))}})); err != nil {
		return Calls{}, err
	}
	big := bigPayload()
	for i := range 48 {
		if err := mustCall(s.URL, rpc("eventStore.append", map[string]any{"executionId": "big", "events": []any{ev("big", i, big)}})); err != nil {
			return Calls{}, err
		}
	}
	c := Calls{Handshake: rpc("bridge.handshake", map[string]any{}), Small: rpc("eventStore.read", map[string]any{"executionId": "small"}),
		Large: rpc("eventStore.read", map[string]any{"executionId": "big"}), Streams: make([]string, n)}
	for i := range c.Streams { // a chunked append whose body stops mid-way
		c.Streams[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eventStore.append","params":{"executionId":"open-%d","events":[`, i, i)
	}
	return c, nil
}

func kernelSetup(ctx context.Context, s *Served, n int) (Calls, error) {
	cl := carrier.NewClient(s.URL, time.Minute)
	defer cl.Close()
	start := func(id string) (string, error) {
		var r struct {
			Driver string `json:"driver"`
		}
		err := cl.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "siege", "executionId": id}, &r)
		return r.Driver, err
	}
	if _, err := start("small"); err != nil {
		return Calls{}, err
	}
	driver, err := start("big")
	if err != nil {
		return Calls{}, err
	}
	big := bigPayload()
	for range 48 {
		if err := cl.Call(ctx, "syscall.emit", map[string]any{"executionId": "big", "driver": driver, "args": map[string]any{"eventType": "progress", "payload": big}}, nil); err != nil {
			return Calls{}, err
		}
	}
	c := Calls{Handshake: rpc(carrier.MethodHandshake, map[string]any{}), Small: rpc(carrier.MethodGetState, map[string]any{"executionId": "small", "includeLog": true}),
		Large: rpc(carrier.MethodGetState, map[string]any{"executionId": "big", "includeLog": true}), Streams: make([]string, n)}
	for i := range c.Streams { // a stream that sent one chunk and waits for its next
		id := fmt.Sprintf("stream-%d", i)
		d, err := start(id)
		if err != nil {
			return Calls{}, err
		}
		c.Streams[i] = rpc("syscall.stream", map[string]any{"executionId": id, "driver": d, "args": map[string]any{"eventType": "token"}}) + "\n\"first\"\n"
	}
	return c, nil
}
