package kernelkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// terminalChecks: a completed, failed or cancelled execution stays so (spec §5, I-WIRE-29):
// every state-changing call is refused with nothing appended; only a read-only replay (attach) and
// resumeAs (spec §5: the documented exit) may follow. Refusing a cancel of it is our choice
// (I-KERNEL-23), in a check of its own with two assertions (choiceCheck): required, the kernel
// refused it as I-WIRE-29 says (-32025, kind terminal, nothing appended), answered it as done with
// nothing appended, or recorded it (EXECUTION_CANCELLED appended, status cancelled); recommended,
// it refused.
func terminalChecks() []kitCheck {
	var out []kitCheck
	for _, status := range []string{"completed", "failed", "cancelled"} {
		out = append(out,
			check("kernel/terminal/"+status, spec.MustNot,
				"a "+status+" execution refuses resume with and without attach (-32023), deliver (-32023, when served), a second start (-32004) and its last driver's syscall and complete (-32002), with nothing appended; its status stays "+status+" and attach gives a read-only replay",
				terminal(status), "S5.ingress.suspended-only", "S5.ingress.refusal-appends-nothing", "I-WIRE-29"),
			choiceCheck("kernel/terminal/"+status+"/cancel", spec.MustNot,
				"a cancel of a "+status+" execution is refused -32025 (kind terminal) with nothing appended, answered as done with nothing appended, or recorded as EXECUTION_CANCELLED with status cancelled (required: I-WIRE-29), and is refused, its status staying "+status+" (recommended: ours)",
				terminalCancel(status), []string{"I-WIRE-29"}, []string{"I-KERNEL-23"}))
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

// terminalCancel holds a cancel of a status execution to one of the legal options: refused as
// I-WIRE-29 says, answered as done, or recorded (required); refused (recommended, I-KERNEL-23).
func terminalCancel(status string) func(context.Context, *Case) error {
	return func(ctx context.Context, c *Case) error {
		d, err := ended(ctx, c, status)
		if err != nil {
			return err
		}
		id := d.ExecutionID
		before, err := logOf(ctx, c, id)
		if err != nil {
			return err
		}
		var a carrier.Attached
		callErr := c.Store.Call(ctx, carrier.MethodCancel, map[string]any{"executionId": id, "reason": "again"}, &a)
		after, err := logOf(ctx, c, id)
		if err != nil {
			return err
		}
		st, err := stateOf(ctx, c, id)
		if err != nil {
			return err
		}
		var added []string
		for _, e := range after[min(len(before), len(after)):] {
			added = append(added, e.EventType)
		}
		got := fmt.Sprintf("%s; appended [%s]; status %s", show(callErr, "accepted, status "+a.Status), strings.Join(added, " "), st.Status)
		ce, isCall := asCall(callErr)
		refused := isCall && ce.RPC.Code == carrier.CodeNotRunnable && ce.Kind() == "terminal" && len(added) == 0 && st.Status == status
		done := callErr == nil && len(added) == 0 && st.Status == status
		recorded := callErr == nil && a.Status == "cancelled" && slices.Equal(added, []string{manifest.ExecutionCancelled}) && st.Status == "cancelled"
		var errs []error
		if !refused && !done && !recorded {
			errs = append(errs, c.Cite("I-WIRE-29").Failf(carrier.MethodCancel, "of a "+status+" execution", got,
				fmt.Sprintf("error %d (kind terminal) with nothing appended, an answer with nothing appended and status %s, or EXECUTION_CANCELLED appended and status cancelled", carrier.CodeNotRunnable, status)))
		}
		if !refused {
			errs = append(errs, c.Cite("I-KERNEL-23").Failf(carrier.MethodCancel, "of a "+status+" execution", got,
				fmt.Sprintf("error %d (kind terminal) with nothing appended; status %s (refused)", carrier.CodeNotRunnable, status)))
		}
		return errors.Join(errs...)
	}
}

// terminal holds a status execution to its refusals of every state-changing call but a cancel
// (terminalCancel) and to a read-only replay on attach.
func terminal(status string) func(context.Context, *Case) error {
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
		if serves(hs, carrier.MethodDeliver) {
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
