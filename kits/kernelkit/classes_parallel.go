package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// parallelClassChecks: a parallel's error paths (I-WIRE-11, I-WIRE-52): which failure a join
// names, and that a joined branch takes no more calls.
func parallelClassChecks() []kitCheck {
	return []kitCheck{
		check("kernel/parallel/error-paths", spec.Must, "of three branches, [0] returning and [1] and [2] failing, the join is -32020 (kind branch) naming the first failing branch, data.branch 1; after it a call and an end in branch [1] are refused -32025 (kind branch) with nothing appended, and the flow's top goes on",
			kkParallelErrorPaths, "I-WIRE-11", "I-WIRE-52", "I-WIRE-25"),
	}
}

func kkParallelErrorPaths(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "parallel-errors")
	if err != nil {
		return err
	}
	for _, k := range []struct {
		branch []int
		op     string
		args   string
	}{
		{nil, "parallel", `{"branches":3}`},
		{[]int{0}, "execute", `{"task":{"id":"a","toolId":"echo"},"input":"a"}`},
		{[]int{0}, "parallel", `{"end":{"output":"a"}}`},
		{[]int{1}, "parallel", `{"end":{"error":{"message":"b failed"}}}`},
		{[]int{2}, "parallel", `{"end":{"error":{"message":"c failed"}}}`},
	} {
		if _, _, err := d.SyscallAt(ctx, k.branch, k.op, json.RawMessage(k.args)); err != nil {
			return c.Cite("I-WIRE-11").Failf("syscall."+k.op, fmt.Sprintf("%s at branch %v", k.args, k.branch), err, "success")
		}
	}
	const join = `{"join":true} (branch [0] returned, [1] then [2] failed)`
	_, _, err = d.SyscallAt(ctx, nil, "parallel", json.RawMessage(`{"join":true}`))
	if err := wantCode(c.Cite("I-WIRE-11", "I-WIRE-25").Failf, "syscall.parallel", join, err, carrier.CodeStepFailed, "branch"); err != nil {
		return err
	}
	ce, _ := asCall(err)
	var data struct {
		Branch *int `json:"branch"`
	}
	_ = json.Unmarshal(ce.RPC.Data, &data)
	if data.Branch == nil || *data.Branch != 1 {
		got := "no data.branch"
		if data.Branch != nil {
			got = fmt.Sprintf("data.branch %d", *data.Branch)
		}
		return c.Cite("I-WIRE-11").Failf("syscall.parallel", join, got+" ("+ce.RPC.Message+")", "data.branch 1 (the first failing branch, by index)")
	}
	for _, k := range []struct{ op, args string }{
		{"execute", `{"task":{"id":"late","toolId":"echo"},"input":"late"}`},
		{"parallel", `{"end":{"output":"late"}}`},
	} {
		at := k.args + " at branch [1], after the join"
		err := appendsNothing(ctx, c, d.ExecutionID, "syscall."+k.op+" "+at, func() error {
			_, _, err := d.SyscallAt(ctx, []int{1}, k.op, json.RawMessage(k.args))
			return wantCode(c.Cite("I-WIRE-52", "I-WIRE-25").Failf, "syscall."+k.op, at, err, carrier.CodeNotRunnable, "branch")
		})
		if err != nil {
			return err
		}
	}
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"after","toolId":"echo"},"input":"after"}`); err != nil {
		return err
	}
	if err := complete(ctx, c, d, "done"); err != nil {
		return err
	}
	log, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	var got []string
	for _, e := range log {
		got = append(got, e.EventType)
	}
	want := []string{manifest.ExecutionStarted, manifest.StepStarted, manifest.StepCompleted, manifest.StepStarted, manifest.StepCompleted, manifest.ExecutionCompleted}
	return c.Cite("I-WIRE-11", "I-WIRE-52").Diff("log", d.ExecutionID+" (event types: steps a and after ran, nothing after the join in branch [1])", want, got)
}
