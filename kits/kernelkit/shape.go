package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// shapeChecks: what the request alone refuses (docs/wire.md, "Errors"): syscall arguments held to
// their shape (I-WIRE-49), counts and times (I-WIRE-47), the member named in data.field
// (I-WIRE-48), which refusal answers when several apply (I-WIRE-41), and a driver method on an
// execution that has no log (-32003, I-WIRE-25).
func shapeChecks() []kitCheck {
	return []kitCheck{
		check("kernel/errors/args-shape", spec.Must, "syscall arguments without their syscall's shape — a required member absent, null or an empty name (execute's task, task.id, task.toolId; run's stepId; decide's choice or error; emit's eventType; suspend's on; sleep's ms; parallel's branches, end or join), one of the wrong JSON type (task.errors), choice and error both — are -32602 (kind params) naming the member in data.field, with nothing appended; what the kernel judges of well-shaped arguments (an unknown toolId, a parallel of 0 branches) stays -32026, and a human step needs no toolId",
			kkArgsShape, "I-WIRE-49", "I-WIRE-48", "I-WIRE-6", "I-WIRE-25"),
		check("kernel/errors/field-path", spec.Must, "data.field of a -32602 names the member as its path below params — executionId, budget.tokens, input.n (an inexact number, when the kernel refuses it: taking it is legal, I-NET-50), bogus, args.bogus, args.task.errors[1] — never prefixed params.",
			kkFieldPath, "I-WIRE-48", "I-NET-50"),
		check("kernel/errors/precedence", spec.Must, "when two refusals apply the first of params (-32602), execution (-32003), driver (-32002), the run's state (-32025), the kernel's judgement (-32026) answers: bad arguments under another token are -32602, another token on an unknown execution -32003, another token at a branch not open -32002, an end at the top where the join is due -32602, a call there -32026; none appends",
			kkPrecedence, "I-WIRE-41", "I-WIRE-25", "I-WIRE-11"),
		check("kernel/errors/not-found-driver", spec.Must, "every driver method (each syscall.<name> the kernel serves, execution.complete) on an execution that has no log is -32003, whatever token it carries",
			kkNotFoundDriver, "I-WIRE-25", "I-WIRE-41"),
		check("kernel/syscall/counts", spec.Must, "a negative or fractional count or time (sleep's ms, sleepUntil's wakeAt, suspend's timeoutMs, a task's timeoutMs) is -32602 naming the member, with nothing appended; a sleep of 0 ms parks",
			kkCounts, "I-WIRE-47", "I-WIRE-48"),
	}
}

// shapeCase is a call whose arguments lack their shape: the -32602 answer names field.
type shapeCase struct {
	op, args, field string
}

func kkArgsShape(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "shape")
	if err != nil {
		return err
	}
	cases := []shapeCase{
		{"execute", `{"input":1}`, "args.task"},
		{"execute", `{"task":"s"}`, "args.task"},
		{"execute", `{"task":{"id":"s"},"input":1}`, "args.task.toolId"},
		{"execute", `{"task":{"id":"","toolId":"echo"},"input":1}`, "args.task.id"},
		{"execute", `{"task":{"id":"s","toolId":null},"input":1}`, "args.task.toolId"},
		{"execute", `{"task":{"id":"s","toolId":"echo","errors":"declined"},"input":1}`, "args.task.errors"},
		{"run", `{"toolId":"echo","input":1}`, "args.stepId"},
		{"decide", `{"id":"d"}`, "args.choice"},
		{"decide", `{"id":"d","choice":1,"error":{"message":"m"}}`, "args.error"},
		{"emit", `{"eventType":"","payload":1}`, "args.eventType"},
		{"emit", `{"payload":1}`, "args.eventType"},
		{"suspend", `{}`, "args.on"},
		{"sleep", `{}`, "args.ms"},
		{"parallel", `{}`, "args.branches"},
	}
	total := len(cases) + 3
	err = appendsNothing(ctx, c, d.ExecutionID, "calls whose arguments lack their shape", func() error {
		for i, k := range cases {
			c.Progress(i, total)
			_, _, err := d.Syscall(ctx, k.op, json.RawMessage(k.args))
			if err := wantCode(c.Cite("I-WIRE-49", "I-WIRE-6", "I-WIRE-25").Failf, "syscall."+k.op, k.args, err, carrier.CodeInvalidParams, "params"); err != nil {
				return err
			}
			if got := fieldOf(err); got != k.field {
				return c.Cite("I-WIRE-48").Failf("syscall."+k.op, k.args, "data.field "+quoteOr(got), fmt.Sprintf("data.field %q", k.field))
			}
		}
		// the kernel's judgement of well-shaped arguments keeps its own code
		for i, k := range []shapeCase{
			{"execute", `{"task":{"id":"s","toolId":"no-such-tool"},"input":1}`, ""},
			{"parallel", `{"branches":0}`, ""},
		} {
			c.Progress(len(cases)+i, total)
			_, _, err := d.Syscall(ctx, k.op, json.RawMessage(k.args))
			if err := wantCode(c.Cite("I-WIRE-49", "I-WIRE-25").Failf, "syscall."+k.op, k.args+" (well-shaped: the kernel's judgement)", err, carrier.CodeSyscallError, ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// a human step's task has no toolId: its answer is the gate's
	c.Progress(total-1, total)
	args := `{"task":{"id":"review","kind":"human"},"input":{"doc":1}}`
	if _, parked, err := d.Syscall(ctx, "execute", json.RawMessage(args)); err != nil || !parked {
		return c.Cite("I-WIRE-49").Failf("syscall.execute", args, show(err, "answered without parking"), "parked on the human step's gate (a human step needs no toolId)")
	}
	return nil
}

// fieldOf is data.field of a kernel's error answer ("" when it has none).
func fieldOf(err error) string {
	var f string
	_ = json.Unmarshal(dataOf(err)["field"], &f)
	return f
}

func quoteOr(s string) string {
	if s == "" {
		return "absent"
	}
	return fmt.Sprintf("%q", s)
}

func kkFieldPath(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "field")
	if err != nil {
		return err
	}
	flow := "kit.field"
	calls := []struct {
		method string
		params any
		field  string
	}{
		{carrier.MethodGetState, map[string]any{"executionId": 7}, "executionId"},
		{carrier.MethodStart, map[string]any{"flowId": flow, "budget": map[string]any{"tokens": -1}}, "budget.tokens"},
		{carrier.MethodStart, map[string]any{"flowId": flow, "input": json.RawMessage(`{"n":12345678901234567890}`)}, "input.n"},
		{carrier.MethodStart, map[string]any{"flowId": flow, "bogus": 1}, "bogus"},
		{"syscall.emit", map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "args": map[string]any{"eventType": "kit.x", "payload": 1, "bogus": 1}}, "args.bogus"},
		{"syscall.execute", map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "args": json.RawMessage(`{"task":{"id":"s","toolId":"echo","errors":["declined",""]},"input":1}`)}, "args.task.errors[1]"},
	}
	var lenient error // a legal option other than ours: said once every required comparison held
	for i, k := range calls {
		c.Progress(i, len(calls))
		args := string(mustJSON(k.params))
		err := c.Store.Call(ctx, k.method, k.params, nil)
		if err == nil && k.field == "input.n" {
			// a kernel may read a number a double cannot hold as JSON.parse does (I-NET-50): taking it is
			// another legal option, so only its refusal is ours; a refusal still names the path
			lenient = c.Cite("I-NET-50").Failf(k.method, args, "answered (the number taken)", "-32602 kind number naming input.n (ours; taking it is legal)")
			continue
		}
		if err := wantError(c, k.method, args, err, carrier.CodeInvalidParams, ""); err != nil {
			return err
		}
		if got := fieldOf(err); got != k.field {
			return c.Cite("I-WIRE-48").Failf(k.method, args, "data.field "+quoteOr(got), fmt.Sprintf("data.field %q (the path below params)", k.field))
		}
	}
	return lenient
}

func kkPrecedence(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "precedence")
	if err != nil {
		return err
	}
	other := &carrier.Driver{C: c.Store, ExecutionID: d.ExecutionID, Token: "not-the-driver"}
	nobody := &carrier.Driver{C: c.Store, ExecutionID: c.ExecID("nobody"), Token: "not-the-driver"}
	echo := `{"task":{"id":"p","toolId":"echo"},"input":1}`
	type step struct {
		what string
		d    *carrier.Driver
		path []int
		op   string
		args string
		code int // 0: answered
	}
	steps := []step{
		{"arguments without their shape, another driver's token", other, nil, "execute", `{"input":1}`, carrier.CodeInvalidParams},
		{"an execution that has no log, another driver's token", nobody, nil, "execute", echo, carrier.CodeNotFound},
		{"another driver's token at a branch not open", other, []int{4}, "execute", echo, carrier.CodeFenced},
		{"the open of one branch", d, nil, "parallel", `{"branches":1}`, 0},
		{"the end of branch [0]", d, []int{0}, "parallel", `{"end":{"output":1}}`, 0},
		{"an end at the flow's top where the join is due", d, nil, "parallel", `{"end":{"output":1}}`, carrier.CodeInvalidParams},
		{"a call at the flow's top where the join is due", d, nil, "execute", echo, carrier.CodeSyscallError},
		{"the join", d, nil, "parallel", `{"join":true}`, 0},
	}
	return appendsNothing(ctx, c, d.ExecutionID, "calls two refusals apply to", func() error {
		for i, k := range steps {
			c.Progress(i, len(steps))
			_, _, err := k.d.SyscallAt(ctx, k.path, k.op, json.RawMessage(k.args))
			at := k.args
			if len(k.path) > 0 {
				at += fmt.Sprintf(" at branch %v", k.path)
			}
			if k.code == 0 {
				if err != nil {
					return c.Failf("syscall."+k.op, at+" ("+k.what+")", err, "success")
				}
				continue
			}
			if err := wantError(c, "syscall."+k.op, at+" ("+k.what+")", err, k.code, ""); err != nil {
				return err
			}
		}
		return nil
	})
}

func kkNotFoundDriver(ctx context.Context, c *Case) error {
	hs, err := handshake(ctx, c)
	if err != nil {
		return err
	}
	id := c.ExecID("nobody")
	methods := DriverMethods()
	for i, m := range methods {
		c.Progress(i, len(methods))
		if !serves(hs, m) {
			continue
		}
		p := map[string]any{"executionId": id, "driver": "any-token"}
		if m == carrier.MethodComplete {
			p["output"] = 1
		} else {
			p["args"] = json.RawMessage(validArgs[strings.TrimPrefix(m, "syscall.")])
		}
		if err := wantError(c, m, id+" (no log), a token", c.Store.Call(ctx, m, p, nil), carrier.CodeNotFound, ""); err != nil {
			return err
		}
	}
	return nil
}

func kkCounts(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "counts")
	if err != nil {
		return err
	}
	cases := []shapeCase{
		{"sleep", `{"ms":-5}`, "args.ms"},
		{"sleep", `{"ms":1.5}`, "args.ms"},
		{"sleepUntil", `{"wakeAt":-1}`, "args.wakeAt"},
		{"suspend", `{"on":"g","timeoutMs":-1}`, "args.timeoutMs"},
		{"execute", `{"task":{"id":"s","toolId":"echo","timeoutMs":-10},"input":1}`, "args.task.timeoutMs"},
	}
	err = appendsNothing(ctx, c, d.ExecutionID, "negative and fractional counts", func() error {
		for i, k := range cases {
			c.Progress(i, len(cases)+1)
			_, _, err := d.Syscall(ctx, k.op, json.RawMessage(k.args))
			if err := wantError(c, "syscall."+k.op, k.args, err, carrier.CodeInvalidParams, ""); err != nil {
				return err
			}
			if got := fieldOf(err); got != k.field {
				return c.Failf("syscall."+k.op, k.args, "data.field "+quoteOr(got), fmt.Sprintf("data.field %q", k.field))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if _, parked, err := d.Syscall(ctx, "sleep", json.RawMessage(`{"ms":0}`)); err != nil || !parked {
		return c.Failf("syscall.sleep", `{"ms":0}`, show(err, "answered without parking"), "parked (a timer due at once)")
	}
	return nil
}
