package carrier

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
)

// Reference: ADR 0026 A3, I-WIRE-5 — a resume with no driver parks durably: a kernel restarted
// over the same log shows the execution awaiting a driver, and a driver attaching to the new
// kernel re-drives it to the end with no step run twice. I-WIRE-3: a lapsed driver is replaced.
func TestResumeWithoutDriverSurvivesRestart(t *testing.T) {
	store := memory.NewEventStore()
	ctx := testCtx(t)
	boot := func(lease time.Duration) *Client {
		rt, err := kernel.New(ProfileConfig(store, false, ProfileRings(), kernel.Hooks{}))
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(rt, store, Options{Lease: lease})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(c)
		t.Cleanup(srv.Close)
		return NewClient(srv.URL, 20*time.Second)
	}
	cl := boot(time.Minute)
	var a Attached
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "durable", "executionId": "d1", "input": 1}, &a); err != nil {
		t.Fatal(err)
	}
	d := &Driver{C: cl, ExecutionID: "d1", Token: a.Driver}
	if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"a","toolId":"echo"},"input":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, parked, err := d.Syscall(ctx, "suspend", json.RawMessage(`{"on":"go"}`)); err != nil || !parked {
		t.Fatalf("suspend = parked %v, %v", parked, err)
	}
	if err := cl.Call(ctx, MethodResume, map[string]any{"executionId": "d1", "eventType": "go", "payload": "yes"}, &a); err != nil {
		t.Fatal(err)
	}

	// the kernel restarts: a new carrier over the same log, with a short lease
	cl2 := boot(50 * time.Millisecond)
	var st StateResult
	if err := cl2.Call(ctx, MethodGetState, map[string]any{"executionId": "d1"}, &st); err != nil {
		t.Fatal(err)
	}
	if st.Status != "running" || st.Driver != "none" || !st.AwaitingDriver || !strings.Contains(st.Canonical, `"_resumePayloads":["yes"]`) {
		t.Fatalf("wire/resume-durable [I-WIRE-5]: after a restart getState = status %s driver %s awaiting %v %s, want running, none, true with the answer recorded",
			st.Status, st.Driver, st.AwaitingDriver, st.Canonical)
	}
	if err := cl2.Call(ctx, MethodAttach, map[string]any{"executionId": "d1"}, &a); err != nil || a.Mode != "recover" {
		t.Fatalf("wire/resume-durable [I-WIRE-5]: attach after a restart = %+v, %v; want a recovery seat", a, err)
	}
	first := a.Driver
	// the driver goes silent past its lease; another driver takes the seat and re-drives
	time.Sleep(120 * time.Millisecond)
	if err := cl2.Call(ctx, MethodAttach, map[string]any{"executionId": "d1"}, &a); err != nil || a.Driver == first {
		t.Fatalf("wire/resume-durable [I-WIRE-3]: attach after the lease lapsed = %+v, %v; want a new seat", a, err)
	}
	d2 := &Driver{C: cl2, ExecutionID: "d1", Token: a.Driver}
	if _, _, err := d2.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"a","toolId":"echo"},"input":1}`)); err != nil {
		t.Fatal(err)
	}
	if v, parked, err := d2.Syscall(ctx, "suspend", json.RawMessage(`{"on":"go"}`)); err != nil || parked || string(v) != `"yes"` {
		t.Fatalf("wire/resume-durable [I-WIRE-5]: re-driven suspend = %s parked %v %v, want the recorded answer", v, parked, err)
	}
	old := &Driver{C: cl2, ExecutionID: "d1", Token: first}
	if _, _, err := old.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"z","toolId":"echo"},"input":1}`)); !isCode(err, CodeFenced) {
		t.Errorf("wire/resume-durable [I-WIRE-3]: the replaced driver's call = %v, want fenced", err)
	}
	var done Attached
	if err := cl2.Call(ctx, MethodComplete, map[string]any{"executionId": "d1", "driver": d2.Token, "output": "ok"}, &done); err != nil || done.Status != "completed" {
		t.Fatalf("complete = %+v, %v", done, err)
	}
	run, _ := State(ctx, cl2, "d1")
	if n := StepStarts(run.Log); n["a"] != 1 {
		t.Errorf("wire/resume-durable [A26.wire.kernel-authoritative]: step a started %d times, want 1", n["a"])
	}
}
