package kernelkit

import (
	"context"
	"encoding/json"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// replayChecks: execution.attach on a parked or finished execution is a read-only replay
// (I-WIRE-27, the wire's form of the reference runtime's I-KERNEL-1): everything is served, nothing is appended, and nothing the log does not
// hold is accepted.
func replayChecks() []kitCheck {
	return []kitCheck{
		check("kernel/replay/finished-complete", spec.MustNot, "a read-only replay of a completed execution refuses a complete whose output differs, or that fails it, with -32024 and nothing appended, and accepts the log's own output",
			kkReplayFinished, "I-WIRE-27", "S1.P2.replay-identical"),
		check("kernel/replay/parked-complete", spec.MustNot, "a read-only replay of a parked execution refuses a complete (the log holds no end) with -32024 and nothing appended",
			kkReplayParked, "I-WIRE-27"),
		check("kernel/replay/unanswered-call", spec.MustNot, "a read-only replay refuses a syscall the log does not answer with -32024 and nothing appended",
			kkReplayUnanswered, "I-WIRE-27"),
	}
}

// replaySeat attaches to an ended or parked execution and checks the seat is a replay.
func replaySeat(ctx context.Context, c *Case, d *carrier.Driver) error {
	a, err := attach(ctx, c, d.ExecutionID, "")
	if err != nil {
		return err
	}
	if a.Mode != "replay" {
		return c.Failf(carrier.MethodAttach, d.ExecutionID, "mode "+a.Mode, "mode replay")
	}
	d.Token = a.Driver
	return nil
}

func kkReplayFinished(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "replay-finished")
	if err != nil {
		return err
	}
	step := `{"task":{"id":"a","toolId":"echo"},"input":"a"}`
	if _, err := syscall(ctx, c, d, "execute", step); err != nil {
		return err
	}
	if err := complete(ctx, c, d, map[string]any{"out": 1}); err != nil {
		return err
	}
	for _, end := range []struct {
		what   string
		params map[string]any
	}{
		{"another output", map[string]any{"output": map[string]any{"out": 2}}},
		{"an error", map[string]any{"error": map[string]any{"message": "rewritten"}}},
	} {
		err := appendsNothing(ctx, c, d.ExecutionID, "a replay's complete with "+end.what, func() error {
			if err := replaySeat(ctx, c, d); err != nil {
				return err
			}
			if _, err := syscall(ctx, c, d, "execute", step); err != nil {
				return err
			}
			end.params["executionId"], end.params["driver"] = d.ExecutionID, d.Token
			err := c.Store.Call(ctx, carrier.MethodComplete, end.params, nil)
			return wantError(c, carrier.MethodComplete, "with "+end.what+" in a replay of a completed execution", err, carrier.CodeReplayDivergence, "")
		})
		if err != nil {
			return err
		}
	}
	return appendsNothing(ctx, c, d.ExecutionID, "a replay's complete with the log's output", func() error {
		if err := replaySeat(ctx, c, d); err != nil {
			return err
		}
		if _, err := syscall(ctx, c, d, "execute", step); err != nil {
			return err
		}
		return complete(ctx, c, d, map[string]any{"out": 1})
	})
}

func kkReplayParked(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "replay-parked")
	if err != nil {
		return err
	}
	step := `{"task":{"id":"a","toolId":"echo"},"input":"a"}`
	if _, err := syscall(ctx, c, d, "execute", step); err != nil {
		return err
	}
	if err := park(ctx, c, d, "approve"); err != nil {
		return err
	}
	return appendsNothing(ctx, c, d.ExecutionID, "a replay's complete", func() error {
		if err := replaySeat(ctx, c, d); err != nil {
			return err
		}
		if _, err := syscall(ctx, c, d, "execute", step); err != nil {
			return err
		}
		err := c.Store.Call(ctx, carrier.MethodComplete, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "output": "forged"}, nil)
		return wantError(c, carrier.MethodComplete, "in a replay of a parked execution", err, carrier.CodeReplayDivergence, "")
	})
}

func kkReplayUnanswered(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "replay-unanswered")
	if err != nil {
		return err
	}
	if err := complete(ctx, c, d, 1); err != nil {
		return err
	}
	return appendsNothing(ctx, c, d.ExecutionID, "a replay's unanswered call", func() error {
		if err := replaySeat(ctx, c, d); err != nil {
			return err
		}
		args := `{"eventType":"kit.late","payload":1}`
		_, _, err := d.Syscall(ctx, "emit", json.RawMessage(args))
		if err == nil {
			args = `{"task":{"id":"late","toolId":"echo"},"input":1}`
			_, _, err = d.Syscall(ctx, "execute", json.RawMessage(args))
		}
		return wantError(c, "syscall.execute", args+" in a replay of a completed execution", err, carrier.CodeReplayDivergence, "")
	})
}
