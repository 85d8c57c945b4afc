package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// wedgeChecks: no parallel call wedges an execution (I-WIRE-52): a call at a scope whose branches
// are open is refused at once, and every later call is answered.
func wedgeChecks() []kitCheck {
	return []kitCheck{
		check("kernel/parallel/busy-scope-refused", spec.MustNot, "a call at the flow's top while its branches run, a join or a complete before every branch ended, and the end of a branch whose nested parallel is open are each refused -32025 (kind branch) with nothing appended; every later call is answered, and the run ends as if they had not been made (a kernel that never answers leaves the check cut short: unknown)",
			kkBusyScope, "I-WIRE-52", "I-WIRE-11", "I-WIRE-25"),
	}
}

func kkBusyScope(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "busy-scope")
	if err != nil {
		return err
	}
	echo := func(id string) string { return `{"task":{"id":"` + id + `","toolId":"echo"},"input":"` + id + `"}` }
	end := func(v string) string { return `{"end":{"output":"` + v + `"}}` }
	const answered, completes = 0, 1
	steps := []struct {
		what   string
		branch []int
		op     string
		args   string
		code   int
	}{
		{"the open of two branches", nil, "parallel", `{"branches":2}`, answered},
		{"a call at the flow's top while its branches run", nil, "execute", echo("top"), carrier.CodeNotRunnable},
		{"a join before any branch ended", nil, "parallel", `{"join":true}`, carrier.CodeNotRunnable},
		{"a complete while the branches run", nil, "complete", "", carrier.CodeNotRunnable},
		{"a call in branch [0]", []int{0}, "execute", echo("a"), answered},
		{"a nested open in branch [0]", []int{0}, "parallel", `{"branches":1}`, answered},
		{"the end of branch [0] while its nested parallel is open", []int{0}, "parallel", end("a"), carrier.CodeNotRunnable},
		{"the end of [0 0]", []int{0, 0}, "parallel", end("a0"), answered},
		{"the nested join", []int{0}, "parallel", `{"join":true}`, answered},
		{"the end of branch [0]", []int{0}, "parallel", end("a"), answered},
		{"a join before branch [1] ended", nil, "parallel", `{"join":true}`, carrier.CodeNotRunnable},
		{"a call in branch [1]", []int{1}, "execute", echo("b"), answered},
		{"the end of branch [1]", []int{1}, "parallel", end("b"), answered},
		{"the join", nil, "parallel", `{"join":true}`, answered},
		{"a call at the flow's top after the join", nil, "execute", echo("after"), answered},
		{"the complete", nil, "complete", "", completes},
	}
	for i, k := range steps {
		c.Progress(i, len(steps))
		at := k.args
		if len(k.branch) > 0 {
			at += fmt.Sprintf(" at branch %v", k.branch)
		}
		at += " (" + k.what + ")"
		var cerr error
		if k.op == "complete" {
			var a carrier.Attached
			cerr = c.Store.Call(ctx, carrier.MethodComplete, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "output": "done"}, &a)
			if cerr == nil && k.code == completes && a.Status != "completed" {
				return c.Failf(carrier.MethodComplete, at, "status "+a.Status, "status completed")
			}
		} else {
			_, _, cerr = d.SyscallAt(ctx, k.branch, k.op, json.RawMessage(k.args))
		}
		op := "syscall." + k.op
		if k.op == "complete" {
			op = carrier.MethodComplete
		}
		switch {
		case k.code == answered || k.code == completes:
			if cerr != nil {
				return c.Cite("I-WIRE-11").Failf(op, at, cerr, "success")
			}
		default:
			if err := wantCode(c.Cite("I-WIRE-52", "I-WIRE-25").Failf, op, at, cerr, k.code, "branch"); err != nil {
				return err
			}
		}
	}
	log, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	var got []string
	for _, e := range log {
		got = append(got, e.EventType)
	}
	// steps a, b and after ran; the refused calls appended nothing
	want := []string{manifest.ExecutionStarted}
	for range 3 {
		want = append(want, manifest.StepStarted, manifest.StepCompleted)
	}
	want = append(want, manifest.ExecutionCompleted)
	return c.Cite("I-WIRE-52").Diff("log", d.ExecutionID+" (event types)", want, got)
}
