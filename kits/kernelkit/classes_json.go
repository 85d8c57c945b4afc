package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// jsonClassChecks: a request that is not strict JSON (I-NET-5, I-NET-6) — refused (recommended,
// I-NET-50) or read as one of the legal readings (required, I-WIRE-62).
func jsonClassChecks() []kitCheck {
	return []kitCheck{
		choiceCheck("kernel/bad-input/strict-json", spec.Must, "an execution.start whose input names a key twice, holds a string with a byte that is not UTF-8, or a number a double does not hold (2^53+1) is refused with nothing recorded, or starts the execution with the input one of the legal readings records — the last of the keys, U+FFFD for the byte, the nearest double or the number as written (required: I-WIRE-62) — and is refused -32602 with kind duplicate-key, utf8 or number (recommended: I-NET-50, ours)",
			kkStrictJSON, []string{"I-WIRE-62"}, []string{"I-NET-50"}),
	}
}

func kkStrictJSON(ctx context.Context, c *Case) error {
	cases := []struct {
		name, input, kind string
		legal             []string // the inputs a legal reading records
	}{
		{"a key named twice", `{"a":1,"a":2}`, "duplicate-key", []string{`{"a":2}`}},
		{"a byte that is not UTF-8", "\"a\xffb\"", "utf8", []string{`"a\ufffdb"`}},
		{"a number a double does not hold", `9007199254740993`, "number", []string{`9007199254740992`, `9007199254740993`}},
	}
	var lenient error // the first recommendation not met: every case is still held to the required part
	for i, k := range cases {
		c.Progress(i, len(cases))
		id := c.ExecID("strict-json")
		body := `{"jsonrpc":"2.0","id":1,"method":"execution.start","params":{"flowId":"kit.strict","executionId":` + string(mustJSON(id)) + `,"input":` + k.input + `}}`
		what := fmt.Sprintf("input %s (%s)", strings.ToValidUTF8(k.input, `\xff`), k.name)
		r, text, err := postRaw(ctx, c, body)
		if err != nil {
			return c.Failf(carrier.MethodStart, what, show(err, text), "one JSON-RPC response")
		}
		if r.Error != nil {
			// refused: nothing may be recorded
			var st carrier.StateResult
			gerr := c.Store.Call(ctx, carrier.MethodGetState, map[string]any{"executionId": id}, &st)
			if err := wantCode(c.Cite("I-WIRE-62").Failf, carrier.MethodGetState, id+" after the refused start with "+what, gerr, carrier.CodeNotFound, ""); err != nil {
				return err
			}
			if kind := (&carrier.CallError{RPC: *r.Error}).Kind(); (r.Error.Code != carrier.CodeInvalidParams || kind != k.kind) && lenient == nil {
				lenient = c.Cite("I-NET-50").Failf(carrier.MethodStart, what, fmt.Sprintf("error %d (kind %s): %s", r.Error.Code, kind, r.Error.Message),
					fmt.Sprintf("error %d (kind %s)", carrier.CodeInvalidParams, k.kind))
			}
			continue
		}
		st, err := stateOf(ctx, c, id)
		if err != nil {
			return err
		}
		var s struct {
			Variables struct {
				Input json.RawMessage `json:"_input"`
			} `json:"variables"`
		}
		_ = json.Unmarshal(st.State, &s)
		legal := false
		for _, l := range k.legal {
			legal = legal || sameJSON(s.Variables.Input, l)
		}
		if !legal {
			return c.Cite("I-WIRE-62").Failf(carrier.MethodGetState, id+" after a start with "+what+" (variables._input)", string(s.Variables.Input), "one of "+strings.Join(k.legal, ", ")+" (a legal reading), or the start refused")
		}
		if lenient == nil {
			lenient = c.Cite("I-NET-50").Failf(carrier.MethodStart, what, "accepted, recorded as "+string(s.Variables.Input), fmt.Sprintf("error %d (kind %s), nothing recorded", carrier.CodeInvalidParams, k.kind))
		}
	}
	return lenient
}
