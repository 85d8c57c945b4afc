package carrier

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
)

// call answers one request of method with params in process.
func rpcCall(t *testing.T, c *Carrier, method string, params map[string]any) Response {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	return c.HandleBytes(context.Background(), b)
}

// begin starts execution id and returns its driver token.
func begin(t *testing.T, c *Carrier, id string) (string, Response) {
	t.Helper()
	resp := rpcCall(t, c, MethodStart, map[string]any{"flowId": "f", "executionId": id})
	var st struct {
		Driver string `json:"driver"`
	}
	_ = json.Unmarshal(resp.Result, &st)
	return st.Driver, resp
}

func capacity(resp Response) (bound string, ok bool) {
	var d struct {
		Kind  string `json:"kind"`
		Bound string `json:"bound"`
	}
	if resp.Error == nil || resp.Error.Code != CodeCapacity {
		return "", false
	}
	_ = json.Unmarshal(resp.Error.Data, &d)
	return d.Bound, d.Kind == "capacity"
}

// Reference: I-NET-21 — serve-kernel's in-memory log is bounded: at MaxEvents a new execution
// makes room by deleting finished executions, the oldest first, and is refused with -32028 kind
// capacity when executions that have not finished hold the bound; past MaxLive live runs a new
// one is refused the same way. Nothing is appended for a refused start.
func TestKernelBounds(t *testing.T) {
	store := memory.NewEventStore()
	c, _, err := NewProfile(store, true, Options{MaxEvents: 10, MaxLive: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Five finished executions of 2 events each (started, completed): 10 events, the bound.
	for i := range 5 {
		id := fmt.Sprintf("done-%d", i)
		driver, resp := begin(t, c, id)
		if resp.Error != nil {
			t.Fatalf("start %s: %v", id, resp.Error)
		}
		if resp := rpcCall(t, c, MethodComplete, map[string]any{"executionId": id, "driver": driver}); resp.Error != nil {
			t.Fatalf("complete %s: %v", id, resp.Error)
		}
	}
	if _, resp := begin(t, c, "live-0"); resp.Error != nil {
		t.Fatalf("a start at the bound with finished executions to delete: %v, want it started", resp.Error)
	}
	if evs, _ := store.Read(ctx, "done-0"); len(evs) != 0 {
		t.Fatalf("the oldest finished execution still holds %d events, want it deleted", len(evs))
	}
	if evs, _ := store.Read(ctx, "done-4"); len(evs) != 2 {
		t.Fatalf("the newest finished execution holds %d events, want its 2 kept", len(evs))
	}
	if _, resp := begin(t, c, "live-1"); resp.Error != nil {
		t.Fatalf("a second live run under MaxLive 2: %v", resp.Error)
	}
	_, resp := begin(t, c, "live-2")
	if bound, ok := capacity(resp); !ok || bound != "live" {
		t.Fatalf("a third live run past MaxLive 2 = %+v, want -32028 kind capacity, bound live", resp.Error)
	}
	if evs, _ := store.Read(ctx, "live-2"); len(evs) != 0 {
		t.Fatalf("the refused start appended %d events", len(evs))
	}

	// Unfinished executions alone at the bound: a start is refused.
	store2 := memory.NewEventStore()
	c2, _, err := NewProfile(store2, true, Options{MaxEvents: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, resp := begin(t, c2, fmt.Sprintf("open-%d", i)); resp.Error != nil {
			t.Fatal(resp.Error)
		}
	}
	_, resp = begin(t, c2, "one-more")
	if bound, ok := capacity(resp); !ok || bound != "events" {
		t.Fatalf("a start while unfinished executions hold MaxEvents = %+v, want -32028 kind capacity, bound events", resp.Error)
	}

	// Flow ids: a start registers its flow for the kernel's lifetime; past MaxFlows a new one is refused.
	c3, _, err := NewProfile(memory.NewEventStore(), true, Options{MaxFlows: 1})
	if err != nil {
		t.Fatal(err)
	}
	if resp := rpcCall(t, c3, MethodStart, map[string]any{"flowId": "a", "executionId": "a-1"}); resp.Error != nil {
		t.Fatal(resp.Error)
	}
	if resp := rpcCall(t, c3, MethodStart, map[string]any{"flowId": "a", "executionId": "a-2"}); resp.Error != nil {
		t.Fatalf("a second execution of a registered flow at MaxFlows: %v", resp.Error)
	}
	resp = rpcCall(t, c3, MethodStart, map[string]any{"flowId": "b", "executionId": "b-1"})
	if bound, ok := capacity(resp); !ok || bound != "flows" {
		t.Fatalf("a start of a new flow past MaxFlows 1 = %+v, want -32028 kind capacity, bound flows", resp.Error)
	}
}
