package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// badInputChecks: bad input at the wire's trust boundary gets its typed error and appends nothing
// (I-WIRE-6).
func badInputChecks() []kitCheck {
	return []kitCheck{
		check("kernel/bad-input/frame", spec.MustNot, "a body that is not JSON (-32700), a batch, an object without jsonrpc 2.0, a method that is not a string or an id that is an object (-32600), and an unknown method (-32601) get their JSON-RPC errors; nothing is appended",
			kkBadFrame, "I-WIRE-6", "I-WIRE-1", "I-WIRE-25"),
		check("kernel/bad-input/hostile-values", spec.MustNot, "params holding __proto__ members, 10 000 levels of nesting or a 1 MiB string answer a typed error or a result (never a crash or a hang) and write no envelope field they name",
			kkBadHostile, "I-WIRE-6"),
	}
}

// postRaw posts a body and decodes the one JSON-RPC response.
func postRaw(ctx context.Context, c *Case, body string) (carrier.Response, string, error) {
	resp, err := c.Store.Post(ctx, "application/json", []byte(body))
	if err != nil {
		return carrier.Response{}, "", err
	}
	var r carrier.Response
	if err := json.Unmarshal(resp, &r); err != nil {
		return r, string(resp), fmt.Errorf("the answer is not one JSON-RPC response: %v", err)
	}
	return r, string(resp), nil
}

func kkBadFrame(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "bad")
	if err != nil {
		return err
	}
	bodies := []struct {
		name, body string
		code       int
	}{
		{"not JSON", `{"jsonrpc":"2.0",`, carrier.CodeParseError},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"wire.handshake"}]`, carrier.CodeInvalidRequest},
		{"no jsonrpc member", `{"id":1,"method":"wire.handshake"}`, carrier.CodeInvalidRequest},
		{"a method that is not a string", `{"jsonrpc":"2.0","id":1,"method":7}`, carrier.CodeInvalidRequest},
		{"an id that is an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"wire.handshake"}`, carrier.CodeInvalidRequest},
		{"an unknown method", `{"jsonrpc":"2.0","id":1,"method":"syscall.teleport","params":{}}`, carrier.CodeMethodNotFound},
	}
	return appendsNothing(ctx, c, d.ExecutionID, "bad frames", func() error {
		for i, b := range bodies {
			c.Progress(i, len(bodies))
			r, text, err := postRaw(ctx, c, b.body)
			if err != nil {
				return c.Failf("POST", b.name, show(err, text), fmt.Sprintf("a JSON-RPC error %d", b.code))
			}
			if r.Error == nil || r.Error.Code != b.code {
				return c.Failf("POST", b.name, text, fmt.Sprintf("a JSON-RPC error %d", b.code))
			}
		}
		return nil
	})
}

func kkBadHostile(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "hostile")
	if err != nil {
		return err
	}
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	big := `"` + strings.Repeat("x", 1<<20) + `"`
	bodies := []struct{ name, args string }{
		{"__proto__ members", `{"eventType":"kit.p","payload":{"__proto__":{"polluted":true},"constructor":{"prototype":1}}}`},
		{"10 000 levels of nesting", `{"eventType":"kit.deep","payload":` + deep + `}`},
		{"a 1 MiB string", `{"eventType":"kit.big","payload":` + big + `}`},
		{"a __proto__ member in args", `{"eventType":"kit.p","payload":1,"__proto__":{"metadata":{"kernel":true}}}`},
	}
	for i, b := range bodies {
		c.Progress(i, len(bodies))
		body := `{"jsonrpc":"2.0","id":1,"method":"syscall.emit","params":{"executionId":` + string(mustJSON(d.ExecutionID)) + `,"driver":` + string(mustJSON(d.Token)) + `,"args":` + b.args + `}}`
		r, text, err := postRaw(ctx, c, body)
		if err != nil {
			return c.Failf("POST syscall.emit", b.name, show(err, text), "a JSON-RPC answer")
		}
		if r.Error != nil && (r.Error.Code == carrier.CodeInternalError || r.Error.Code == 0) {
			return c.Failf("POST syscall.emit", b.name, text, "a typed refusal or a result, not an internal error")
		}
	}
	log, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	for _, e := range log {
		if len(e.Metadata) > 0 && strings.Contains(string(e.Metadata), `"kernel"`) {
			return c.Failf("log", d.ExecutionID, e.EventType+" with metadata "+string(e.Metadata), "no kernel stamp a caller wrote")
		}
	}
	return nil
}
