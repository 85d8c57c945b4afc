package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// fakeBridge answers the handshake properly and every other call with result.
func fakeBridge(t *testing.T, result string) *bridge.Client {
	t.Helper()
	hs := `{"protocol":"1.0.0","implementation":{"name":"fake","version":"0"},"seams":{"EventStore":{"spiVersion":"2.6.0","methods":["append","read"]}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(b, &req)
		res := result
		if req.Method == bridge.MethodHandshake {
			res = hs
		}
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + res + `}`))
	}))
	t.Cleanup(srv.Close)
	c, err := bridge.Dial(context.Background(), srv.URL+"/", bridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Responses are checked strictly against the schemas: an unknown field, a wrong type, a null where
// a list is due or metadata that is null are protocol errors, never silently accepted (I-BRIDGE-4).
func TestResponsesCheckedStrictly(t *testing.T) {
	env := `{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":1,"payload":{}`
	for name, result := range map[string]string{
		"unknown field":   `[` + env + `,"extra":1}]`,
		"string seq":      `[{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":"0","timestamp":1,"payload":{}}]`,
		"null list":       `null`,
		"null metadata":   `[` + env + `,"metadata":null}]`,
		"missing payload": `[{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":1}]`,
	} {
		c := fakeBridge(t, result)
		_, err := c.EventStore().Read(context.Background(), "x")
		var pe *bridge.ProtocolError
		if !errors.As(err, &pe) {
			t.Errorf("Read answered with %s = %v, want a ProtocolError", name, err)
		}
		if c.Stats().ProtocolErrors != 1 {
			t.Errorf("%s: Stats().ProtocolErrors = %d, want 1", name, c.Stats().ProtocolErrors)
		}
	}
	c := fakeBridge(t, `[`+env+`,"metadata":{"kernel":true}}]`)
	got, err := c.EventStore().Read(context.Background(), "x")
	if err != nil || len(got) != 1 || string(got[0].Metadata) != `{"kernel":true}` {
		t.Errorf("Read(well-formed) = %v, %v", got, err)
	}
}
