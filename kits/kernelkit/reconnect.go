package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// reconnectChecks: a driver that lost its connection re-attaches with its token and re-drives from
// the top; the run answers what it already answered, so nothing runs twice (I-WIRE-4).
func reconnectChecks() []kitCheck {
	return []kitCheck{
		check("kernel/reconnect/served", spec.Must, "after a reconnect (execution.attach with the token) the re-driven calls get the answers the run gave, new calls run live, and each step starts once",
			kkReconnectServed, "I-WIRE-4", "A26.wire.kernel-authoritative"),
		check("kernel/reconnect/failed-step", spec.MustNot, "a step that failed (untyped) before a reconnect is answered the same failure on the re-drive and does not run again: one STEP_STARTED",
			kkReconnectFailed, "I-WIRE-4", "A26.wire.kernel-authoritative"),
		check("kernel/reconnect/emit", spec.MustNot, "an emit made before a reconnect is answered from the run on the re-drive and not appended again",
			kkReconnectEmit, "I-WIRE-4", "S3.emit.once"),
		check("kernel/reconnect/divergence", spec.MustNot, "after a reconnect, a call that differs from the one the run answered at that point, or a complete before the answered calls are re-driven, is -32024 with nothing appended",
			kkReconnectDivergence, "I-WIRE-4", "I-WIRE-25"),
	}
}

// reconnect re-attaches the driver with its own token: the seat is kept, re-drive from the top.
func reconnect(ctx context.Context, c *Case, d *carrier.Driver) error {
	a, err := attach(ctx, c, d.ExecutionID, d.Token)
	if err != nil {
		return err
	}
	d.Token = a.Driver
	return nil
}

func kkReconnectServed(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "reconnect")
	if err != nil {
		return err
	}
	calls := []string{`{"task":{"id":"a","toolId":"echo"},"input":"a"}`, `{"task":{"id":"b","toolId":"counter"},"input":{"key":"k"}}`}
	var first []json.RawMessage
	for _, a := range calls {
		v, err := syscall(ctx, c, d, "execute", a)
		if err != nil {
			return err
		}
		first = append(first, v)
	}
	if err := reconnect(ctx, c, d); err != nil {
		return err
	}
	for i, a := range calls {
		v, err := syscall(ctx, c, d, "execute", a)
		if err != nil {
			return err
		}
		if !sameJSON(v, string(first[i])) {
			return c.Failf("syscall.execute", a+" (re-driven after the reconnect)", string(v), string(first[i])+" (the run's answer)")
		}
	}
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"c","toolId":"echo"},"input":"c"}`); err != nil {
		return err
	}
	if err := complete(ctx, c, d, 3); err != nil {
		return err
	}
	log, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	return c.Diff("log", "STEP_STARTED per step", map[string]int{"a": 1, "b": 1, "c": 1}, carrier.StepStarts(log))
}

func kkReconnectFailed(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "reconnect-failed")
	if err != nil {
		return err
	}
	args := `{"task":{"id":"f","toolId":"fail-untyped"},"input":{"message":"boom"}}`
	_, _, err = d.Syscall(ctx, "execute", json.RawMessage(args))
	if err := wantError(c, "syscall.execute", args, err, carrier.CodeStepFailed, "step-failed"); err != nil {
		return err
	}
	if err := reconnect(ctx, c, d); err != nil {
		return err
	}
	_, _, err = d.Syscall(ctx, "execute", json.RawMessage(args))
	if err := wantError(c, "syscall.execute", args+" (re-driven after the reconnect)", err, carrier.CodeStepFailed, "step-failed"); err != nil {
		return err
	}
	log, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	return c.Diff("log", "STEP_STARTED of the failed step", map[string]int{"f": 1}, carrier.StepStarts(log))
}

func kkReconnectEmit(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "reconnect-emit")
	if err != nil {
		return err
	}
	args := `{"eventType":"kit.progress","payload":{"n":1}}`
	if _, err := syscall(ctx, c, d, "emit", args); err != nil {
		return err
	}
	if err := reconnect(ctx, c, d); err != nil {
		return err
	}
	return appendsNothing(ctx, c, d.ExecutionID, "the re-driven emit", func() error {
		_, err := syscall(ctx, c, d, "emit", args)
		return err
	})
}

func kkReconnectDivergence(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "reconnect-diverge")
	if err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"a","toolId":"echo"},"input":"a"}`); err != nil {
		return err
	}
	if err := reconnect(ctx, c, d); err != nil {
		return err
	}
	err = appendsNothing(ctx, c, d.ExecutionID, "a complete before the re-drive", func() error {
		err := c.Store.Call(ctx, carrier.MethodComplete, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "output": 1}, nil)
		return wantError(c, carrier.MethodComplete, "before the answered calls are re-driven", err, carrier.CodeReplayDivergence, "divergence")
	})
	if err != nil {
		return err
	}
	if err := reconnect(ctx, c, d); err != nil {
		return err
	}
	args := `{"task":{"id":"z","toolId":"echo"},"input":"z"}`
	return appendsNothing(ctx, c, d.ExecutionID, "a call that differs from the run's", func() error {
		_, _, err := d.Syscall(ctx, "execute", json.RawMessage(args))
		return wantError(c, "syscall.execute", fmt.Sprintf("%s where the run answered execute a", args), err, carrier.CodeReplayDivergence, "divergence")
	})
}
