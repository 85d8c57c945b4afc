package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// errorChecks: each refusal class answers its own code and data.kind (docs/wire.md, "Errors";
// I-WIRE-25): a kernel answering a neighbouring code is not conformant, since clients branch on it.
func errorChecks() []kitCheck {
	return []kitCheck{
		check("kernel/errors/params", spec.Must, "ill-typed, missing or unknown params — on execution methods and on syscalls, params.driver included — are -32602 (kind params) naming the field",
			kkErrParams, "I-WIRE-6", "I-WIRE-25"),
		check("kernel/errors/not-found", spec.Must, "getState, resume, attach, cancel and resumeAs of an execution that has no log are -32003",
			kkErrNotFound, "I-WIRE-25"),
		check("kernel/errors/refused", spec.Must, "an ingress refusal (a resume naming another gate) is -32023 with data.kind resume-refused",
			kkErrRefused, "I-WIRE-25", "S5.ingress.gate-match"),
		check("kernel/errors/not-runnable", spec.Must, "a syscall at a branch path where no branch is open is -32025 with data.kind branch (the terminal cancel's code is kernel/terminal/<status>/cancel's)",
			kkErrNotRunnable, "I-WIRE-25", "I-WIRE-11"),
		check("kernel/errors/divergence", spec.Must, "a read-only replay's syscall the log does not answer is -32024 with data.kind divergence",
			kkErrDivergence, "I-WIRE-25", "I-WIRE-27"),
		check("kernel/errors/syscall", spec.Must, "arguments the kernel refuses (a decide whose id is reserved for the kernel) are -32026 with data.kind syscall",
			kkErrSyscall, "I-WIRE-25", "S5.decide.loom-reserved"),
		check("kernel/errors/fenced", spec.Must, "a syscall with another driver's token is -32002",
			kkErrFenced, "I-WIRE-25", "I-WIRE-3"),
		check("kernel/errors/step-outcomes", spec.Must, "an untyped step failure is -32020 (kind step-failed, data.message the effect's own), a typed failure -32021 (data.channel and data.payload) and a spent budget -32022 (kind quota-exceeded)",
			kkErrStepOutcomes, "I-WIRE-25", "I-WIRE-10", "S41.typed.record"),
	}
}

// fields reports the data members of a kernel error answer.
func dataOf(err error) map[string]json.RawMessage {
	ce, ok := asCall(err)
	if !ok {
		return nil
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(ce.RPC.Data, &m)
	return m
}

func kkErrParams(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "params")
	if err != nil {
		return err
	}
	calls := []struct {
		method string
		params any
	}{
		{carrier.MethodGetState, map[string]any{"executionId": 7}},
		{carrier.MethodGetState, map[string]any{}},
		{carrier.MethodStart, map[string]any{"flowId": "kit.params", "bogus": 1}},
		{carrier.MethodResume, map[string]any{"executionId": d.ExecutionID}},
		{carrier.MethodCancel, map[string]any{"executionId": d.ExecutionID, "reason": 5}},
		{"syscall.execute", map[string]any{"executionId": d.ExecutionID, "args": map[string]any{"task": map[string]any{"id": "x", "toolId": "echo"}}}},
		{"syscall.execute", map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "args": map[string]any{"task": map[string]any{"id": "x", "toolId": "echo", "bogus": 1}}}},
		{"syscall.emit", map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "args": "not an object"}},
	}
	return appendsNothing(ctx, c, d.ExecutionID, "calls with bad params", func() error {
		for i, k := range calls {
			c.Progress(i, len(calls))
			args := string(mustJSON(k.params))
			if err := wantError(c, k.method, args, c.Store.Call(ctx, k.method, k.params, nil), carrier.CodeInvalidParams, "params"); err != nil {
				return err
			}
		}
		return nil
	})
}

func kkErrNotFound(ctx context.Context, c *Case) error {
	id := c.ExecID("nobody")
	for i, k := range []struct {
		method string
		params map[string]any
	}{
		{carrier.MethodGetState, map[string]any{"executionId": id}},
		{carrier.MethodResume, map[string]any{"executionId": id, "eventType": "go"}},
		{carrier.MethodAttach, map[string]any{"executionId": id}},
		{carrier.MethodCancel, map[string]any{"executionId": id}},
		{carrier.MethodResumeAs, map[string]any{"executionId": id, "flowId": "kit.other"}},
	} {
		c.Progress(i, 5)
		if err := wantError(c, k.method, id+" (no log)", c.Store.Call(ctx, k.method, k.params, nil), carrier.CodeNotFound, ""); err != nil {
			return err
		}
	}
	return nil
}

func kkErrRefused(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "refused")
	if err != nil {
		return err
	}
	if err := park(ctx, c, d, "approve"); err != nil {
		return err
	}
	err = c.Store.Call(ctx, carrier.MethodResume, map[string]any{"executionId": d.ExecutionID, "eventType": "other", "payload": 1}, nil)
	return wantError(c, carrier.MethodResume, "other (parked on approve)", err, carrier.CodeRefused, "resume-refused")
}

func kkErrNotRunnable(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "no-branch")
	if err != nil {
		return err
	}
	args := `{"task":{"id":"a","toolId":"echo"},"input":1}`
	return appendsNothing(ctx, c, d.ExecutionID, "syscall.execute in branch [3]", func() error {
		_, _, err := d.SyscallAt(ctx, []int{3}, "execute", json.RawMessage(args))
		return wantError(c, "syscall.execute", args+" in branch [3], no parallel open", err, carrier.CodeNotRunnable, "branch")
	})
}

func kkErrDivergence(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "diverge")
	if err != nil {
		return err
	}
	if err := complete(ctx, c, d, 1); err != nil {
		return err
	}
	a, err := attach(ctx, c, d.ExecutionID, "")
	if err != nil {
		return err
	}
	d.Token = a.Driver
	args := `{"task":{"id":"new","toolId":"echo"},"input":1}`
	_, _, err = d.Syscall(ctx, "execute", json.RawMessage(args))
	return wantError(c, "syscall.execute", args+" (a replay of a completed execution with no steps)", err, carrier.CodeReplayDivergence, "divergence")
}

func kkErrSyscall(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "syscall")
	if err != nil {
		return err
	}
	args := `{"id":"__loom_route","choice":1}`
	_, _, err = d.Syscall(ctx, "decide", json.RawMessage(args))
	return wantError(c, "syscall.decide", args, err, carrier.CodeSyscallError, "syscall")
}

func kkErrFenced(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "fenced")
	if err != nil {
		return err
	}
	other := &carrier.Driver{C: c.Store, ExecutionID: d.ExecutionID, Token: "not-the-driver"}
	_, _, err = other.Syscall(ctx, "emit", json.RawMessage(`{"eventType":"kit.x","payload":1}`))
	return wantError(c, "syscall.emit", "with another driver's token", err, carrier.CodeFenced, "")
}

func kkErrStepOutcomes(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "outcomes")
	if err != nil {
		return err
	}
	for _, k := range []struct {
		args, kind, member, value string
		code                      int
	}{
		{`{"task":{"id":"u","toolId":"fail-untyped"},"input":{"message":"boom"}}`, "step-failed", "message", `"boom"`, carrier.CodeStepFailed},
		{`{"task":{"id":"t","toolId":"fail-typed"},"input":{"channel":"declined","payload":{"why":"card"}}}`, "typed-failure", "payload", `{"why":"card"}`, carrier.CodeTypedFailure},
		{`{"task":{"id":"m","toolId":"meter"},"input":{"tokens":10}}`, "", "", "", 0},
		{`{"task":{"id":"q","toolId":"echo"},"input":1}`, "quota-exceeded", "", "", carrier.CodeQuotaExceeded},
	} {
		_, _, err := d.Syscall(ctx, "execute", json.RawMessage(k.args))
		if k.code == 0 {
			if err != nil {
				return c.Failf("syscall.execute", k.args, err, "success")
			}
			continue
		}
		if err := wantError(c, "syscall.execute", k.args, err, k.code, k.kind); err != nil {
			return err
		}
		if k.member != "" && !sameJSON(dataOf(err)[k.member], k.value) {
			return c.Failf("syscall.execute", k.args, fmt.Sprintf("data.%s %s", k.member, dataOf(err)[k.member]), fmt.Sprintf("data.%s %s", k.member, k.value))
		}
	}
	return nil
}
