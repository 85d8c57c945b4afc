package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Reference: I-FOLD-21, I-FOLD-22 — `fold` and `vectors --serve` are two entry points of one
// decoder and one fold: for each log they print the same state, or refuse it with the same message
// (exit 2 on the CLI, the matching error kind on the protocol).
func TestFoldAndServeAgree(t *testing.T) {
	const head = `{"id":"e0","workflowId":"wf","executionId":"x1","eventType":"EXECUTION_STARTED","sequence":0,"timestamp":1,"payload":{}}`
	metered := func(seq string) string {
		return `{"id":"e","workflowId":"wf","executionId":"x1","eventType":"RESOURCE_METERED","sequence":` + seq + `,"timestamp":2,"payload":{"wallMs":1e308}}`
	}
	for _, c := range []struct {
		name, log string
		kind      string // "" = a state
		msg       string
	}{
		{"overflowing sum", "[" + head + "," + metered("1") + "," + metered("2") + "]", "", ""},
		{"sequence 0.0", `[{"id":"e0","workflowId":"wf","executionId":"x1","eventType":"progress","sequence":0.0,"timestamp":1,"payload":{}}]`, "", ""},
		{"sequence missing", `[{"id":"e0","workflowId":"wf","executionId":"x1","eventType":"progress","timestamp":1,"payload":{}}]`,
			"invalid-envelope", "envelope 0: sequence: missing"},
		{"timestamp null", `[` + head + `,{"id":"e1","workflowId":"wf","executionId":"x1","eventType":"progress","sequence":1,"timestamp":null,"payload":{}}]`,
			"invalid-envelope", "envelope 1: timestamp: want an integer (epoch milliseconds), got null"},
		{"gap", "[" + head + "," + metered("2") + "]", "sequence", "envelope 1: sequence: got 2, want 1"},
	} {
		code, out, stderr := runCLI(t, c.log, "fold")
		var events []json.RawMessage
		if err := json.Unmarshal([]byte(c.log), &events); err != nil {
			t.Fatal(err)
		}
		req, _ := json.Marshal(map[string]any{"kind": "fold", "id": "t", "profile": "1.26.0", "events": events})
		scode, sout, _ := runCLI(t, string(req)+"\n", "vectors", "--serve")
		var resp struct {
			Output  *string `json:"output"`
			Error   string  `json:"error"`
			Message string  `json:"message"`
		}
		if scode != 0 || json.Unmarshal([]byte(sout), &resp) != nil {
			t.Fatalf("cli/fold-serve-agree [I-FOLD-22]: vectors --serve (%s) = exit %d, %q", c.name, scode, sout)
		}
		if c.kind == "" {
			if code != 0 || resp.Output == nil || strings.TrimSpace(out) != *resp.Output {
				t.Errorf("cli/fold-serve-agree [I-FOLD-21 I-FOLD-22]: fold(%s) = exit %d %q %q; serve = %+v; want the same state from both", c.name, code, out, stderr, resp)
			}
			continue
		}
		if code != 2 || !strings.Contains(stderr, c.msg) || resp.Error != c.kind || !strings.Contains(resp.Message, c.msg) {
			t.Errorf("cli/fold-serve-agree [I-FOLD-22 I-FOLD-23]: fold(%s) = exit %d %q; serve = %+v; want exit 2 and kind %s, both saying %q", c.name, code, stderr, resp, c.kind, c.msg)
		}
	}
}
