package carrier

import (
	"strings"
	"testing"
)

// Reference: I-WIRE-20 — execution.deliver answers a receive parked on its topic: bad params and a
// topic with no open wait are refused with nothing appended; without attach the run waits for a
// driver, whose re-drive is answered the message from the log.
func TestDeliverOverWire(t *testing.T) {
	cl, c, _, store := served(t, Options{Features: Wave2()})
	ctx := testCtx(t)
	var a Attached
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "inbox", "executionId": "d1"}, &a); err != nil {
		t.Fatal(err)
	}
	dr := &Driver{C: cl, ExecutionID: "d1", Token: a.Driver}
	if _, parked, err := dr.Syscall(ctx, "receive", []byte(`{"topic":"orders"}`)); err != nil || !parked {
		t.Fatalf("syscall.receive = parked %v, %v; want parked", parked, err)
	}
	before, _ := store.Read(ctx, "d1")
	for _, k := range []struct {
		params string
		code   int
		field  string
	}{
		{`{"executionId":"d1","topic":"orders"}`, CodeInvalidParams, "messageId"},
		{`{"executionId":"d1","messageId":"m"}`, CodeInvalidParams, "topic"},
		{`{"executionId":"d1","topic":"orders","messageId":"m","at":1}`, CodeInvalidParams, "at"},
		{`{"executionId":"d1","topic":7,"messageId":"m"}`, CodeInvalidParams, "topic"},
		{`{"executionId":"ghost","topic":"orders","messageId":"m"}`, CodeNotFound, ""},
		{`{"executionId":"d1","topic":"other","messageId":"m"}`, CodeRefused, "delivery-refused"},
	} {
		resp := c.HandleBytes(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"execution.deliver","params":`+k.params+`}`))
		if resp.Error == nil || resp.Error.Code != k.code || !strings.Contains(resp.Error.Message+string(resp.Error.Data), k.field) {
			t.Errorf("wire/deliver [I-WIRE-20]: execution.deliver(%s) = %+v, want error %d naming %q", k.params, resp.Error, k.code, k.field)
		}
	}
	if after, _ := store.Read(ctx, "d1"); len(after) != len(before) {
		t.Fatalf("wire/deliver [I-WIRE-20]: refused deliveries appended %d events, want 0", len(after)-len(before))
	}
	a = Attached{}
	if err := cl.Call(ctx, MethodDeliver, map[string]any{"executionId": "d1", "topic": "orders", "messageId": "m1", "message": map[string]int{"id": 1}}, &a); err != nil {
		t.Fatal(err)
	}
	if !a.AwaitingDriver || a.Driver != "" {
		t.Errorf("wire/deliver [I-WIRE-20]: execution.deliver without attach = %+v, want a run awaiting a driver", a)
	}
	if err := cl.Call(ctx, MethodAttach, map[string]any{"executionId": "d1"}, &a); err != nil {
		t.Fatal(err)
	}
	dr.Token = a.Driver
	v, parked, err := dr.Syscall(ctx, "receive", []byte(`{"topic":"orders"}`))
	if err != nil || parked || string(v) != `{"id":1}` {
		t.Errorf("wire/deliver [I-WIRE-20]: re-driven syscall.receive = %s parked %v, %v; want the delivered message", v, parked, err)
	}
	if err := cl.Call(ctx, MethodComplete, map[string]any{"executionId": "d1", "driver": dr.Token, "output": v}, &a); err != nil || a.Status != "completed" {
		t.Errorf("wire/deliver [I-WIRE-20]: execution.complete = %+v, %v; want completed", a, err)
	}
	log, _ := store.Read(ctx, "d1")
	var types []string
	for _, e := range log {
		types = append(types, e.EventType)
	}
	want := "EXECUTION_STARTED EXECUTION_SUSPENDED MESSAGE_CONSUMED EXECUTION_RESUMED EXECUTION_COMPLETED"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("wire/deliver [I-WIRE-20]: log = %s, want %s", got, want)
	}
}
