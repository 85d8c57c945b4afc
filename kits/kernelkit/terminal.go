package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// terminalChecks: a completed, failed or cancelled execution stays so (spec §5, I-WIRE-29):
// every state-changing call is refused with nothing appended; only a read-only replay (attach) and
// resumeAs (spec §5: the documented exit) may follow. Refusing a cancel of it is our choice
// (I-KERNEL-23): a check of its own, recommended.
func terminalChecks() []Check {
	var out []Check
	for _, status := range []string{"completed", "failed", "cancelled"} {
		out = append(out,
			check("kernel/terminal/"+status, spec.MustNot,
				"a "+status+" execution refuses resume with and without attach (-32023), deliver (-32023, when served), a second start (-32004) and its last driver's syscall and complete (-32002), with nothing appended; its status stays "+status+" and attach gives a read-only replay",
				terminal(status, false), "S5.ingress.suspended-only", "S5.ingress.refusal-appends-nothing", "I-WIRE-29"),
			check("kernel/terminal/"+status+"/cancel", spec.MustNot,
				"a "+status+" execution refuses cancel (-32025, kind terminal) with nothing appended; its status stays "+status,
				terminal(status, true), "I-KERNEL-23"))
	}
	return out
}

// ended starts an execution and ends it with status.
func ended(ctx context.Context, c *Case, status string) (*carrier.Driver, error) {
	d, err := startExec(ctx, c, "terminal-"+status)
	if err != nil {
		return nil, err
	}
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"a","toolId":"echo"},"input":1}`); err != nil {
		return nil, err
	}
	var a carrier.Attached
	switch status {
	case "completed":
		err = c.Store.Call(ctx, carrier.MethodComplete, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "output": 1}, &a)
	case "failed":
		err = c.Store.Call(ctx, carrier.MethodComplete, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "error": map[string]any{"message": "gave up"}}, &a)
	case "cancelled":
		err = c.Store.Call(ctx, carrier.MethodCancel, map[string]any{"executionId": d.ExecutionID, "reason": "stop"}, &a)
	}
	if err != nil || a.Status != status {
		return nil, c.Failf("end", d.ExecutionID, show(err, "status "+a.Status), "status "+status)
	}
	return d, nil
}

// terminalCall is a state-changing call a terminal execution refuses, and the refusal.
type terminalCall struct {
	what, method string
	params       map[string]any
	code         int
	kind         string
}

// terminal holds a status execution to its refusals: of a cancel alone when cancel is set, of
// every other state-changing call and the replay attach otherwise.
func terminal(status string, cancel bool) func(context.Context, *Case) error {
	return func(ctx context.Context, c *Case) error {
		hs, err := handshake(ctx, c)
		if err != nil {
			return err
		}
		d, err := ended(ctx, c, status)
		if err != nil {
			return err
		}
		id := d.ExecutionID
		calls := []terminalCall{
			{"resume", carrier.MethodResume, map[string]any{"executionId": id, "eventType": "go", "payload": 1}, carrier.CodeRefused, ""},
			{"resume with attach", carrier.MethodResume, map[string]any{"executionId": id, "eventType": "go", "payload": 1, "attach": true}, carrier.CodeRefused, ""},
			{"a second start", carrier.MethodStart, map[string]any{"flowId": "kit.terminal-" + status, "executionId": id}, carrier.CodeAlreadyExists, ""},
			{"a syscall of its last driver", "syscall.execute", map[string]any{"executionId": id, "driver": d.Token, "args": json.RawMessage(`{"task":{"id":"b","toolId":"echo"},"input":1}`)}, carrier.CodeFenced, ""},
			{"a complete of its last driver", carrier.MethodComplete, map[string]any{"executionId": id, "driver": d.Token, "output": 2}, carrier.CodeFenced, ""},
		}
		switch {
		case cancel:
			calls = []terminalCall{{"cancel", carrier.MethodCancel, map[string]any{"executionId": id, "reason": "again"}, carrier.CodeNotRunnable, "terminal"}}
		case serves(hs, carrier.MethodDeliver):
			calls = append(calls, terminalCall{"deliver", carrier.MethodDeliver, map[string]any{"executionId": id, "topic": "t", "messageId": "m1", "message": 1, "attach": true}, carrier.CodeRefused, ""})
		}
		err = appendsNothing(ctx, c, id, "the state-changing calls", func() error {
			for i, k := range calls {
				c.Progress(i, len(calls)+1)
				if err := wantError(c, k.method, fmt.Sprintf("%s of a %s execution", k.what, status), c.Store.Call(ctx, k.method, k.params, nil), k.code, k.kind); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		st, err := stateOf(ctx, c, id)
		if err != nil {
			return err
		}
		if st.Status != status {
			return c.Failf(carrier.MethodGetState, id, st.Status, status)
		}
		if cancel {
			return nil
		}
		a, err := attach(ctx, c, id, "")
		if err != nil {
			return err
		}
		if a.Mode != "replay" {
			return c.Failf(carrier.MethodAttach, id+" ("+status+")", "mode "+a.Mode, "mode replay")
		}
		return nil
	}
}
