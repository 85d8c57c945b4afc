package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// structureChecks: structural refusals — ids reserved for the kernel (spec §5, I-KERNEL-21,
// I-KERNEL-22) on every syscall that takes one, and a park inside a parallel branch (I-KERNEL-6,
// our choice: those checks are recommended; the branch is driven as I-WIRE-11 says, which the
// parallel checks judge).
func structureChecks() []Check {
	out := []Check{
		check("kernel/reserved/decide", spec.MustNot, "syscall.decide with an id beginning __loom_ is refused -32026 (kind syscall) with nothing appended",
			reserved("decide", carrier.CodeSyscallError, `{"id":"__loom_verdict","choice":1}`), "S5.decide.loom-reserved", "I-WIRE-25"),
		check("kernel/reserved/emit-decision", spec.MustNot, "syscall.emit of a DECISION_RECORDED whose id begins __loom_ is refused -32023 (kind emit-refused) with nothing appended",
			reserved("emit", carrier.CodeRefused, `{"eventType":"DECISION_RECORDED","payload":{"id":"__loom_indoubt:s#1","choice":{"verdict":"applied"}}}`), "S5.decide.loom-reserved", "I-WIRE-25"),
		check("kernel/reserved/suspend-gate", spec.MustNot, "syscall.suspend on a gate beginning __loom_ or a kernel event type other than TIMER_FIRED is refused -32026 with nothing appended (an empty gate is a missing member: -32602, kernel/errors/args-shape)",
			kkReservedGates, "I-KERNEL-21"),
		check("kernel/reserved/human-step", spec.MustNot, "syscall.execute of a human step (kind human) whose id begins __loom_ or is a kernel event type — it names the step's gate — is refused -32026 with nothing appended",
			reserved("execute", carrier.CodeSyscallError, `{"task":{"id":"__loom_review","kind":"human","toolId":"echo"},"input":1}`,
				`{"task":{"id":"STEP_COMPLETED","kind":"human","toolId":"echo"},"input":1}`), "I-KERNEL-22"),
	}
	for _, s := range []string{"suspend", "sleep", "sleepUntil", "receive", "select", "continueAsNew"} {
		out = append(out, check("kernel/structure/park-in-branch/"+s, spec.MustNot,
			"syscall."+s+" inside a branch of a two-branch parallel is refused -32026 with nothing appended (a park in a branch is not supported)",
			parkInBranch(s), "I-KERNEL-6"))
	}
	return out
}

// reserved holds each of the syscall's args to a refusal with code and nothing appended.
func reserved(name string, code int, args ...string) func(context.Context, *Case) error {
	return func(ctx context.Context, c *Case) error {
		d, err := startExec(ctx, c, "reserved-"+name)
		if err != nil {
			return err
		}
		for i, a := range args {
			c.Progress(i, len(args))
			err := appendsNothing(ctx, c, d.ExecutionID, "syscall."+name+" "+a, func() error {
				_, _, err := d.Syscall(ctx, name, json.RawMessage(a))
				return wantError(c, "syscall."+name, a, err, code, "")
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
}

func kkReservedGates(ctx context.Context, c *Case) error {
	gates := []string{"__loom_gate", "__loom_indoubt__"}
	for _, t := range manifest.EventTypes() {
		if t.Name != manifest.TimerFired {
			gates = append(gates, t.Name)
		}
	}
	var args []string
	for _, g := range gates {
		args = append(args, fmt.Sprintf(`{"on":%q}`, g))
	}
	return reserved("suspend", carrier.CodeSyscallError, args...)(ctx, c)
}

func parkInBranch(name string) func(context.Context, *Case) error {
	return func(ctx context.Context, c *Case) error {
		if err := needMethods(ctx, c, "syscall."+name); err != nil {
			return err
		}
		d, err := startExec(ctx, c, "branch-"+name)
		if err != nil {
			return err
		}
		if _, err := syscall(ctx, c, d, "parallel", `{"branches":2}`); err != nil {
			return err
		}
		args := validArgs[name]
		return appendsNothing(ctx, c, d.ExecutionID, "syscall."+name+" in branch [0]", func() error {
			_, _, err := d.SyscallAt(ctx, []int{0}, name, json.RawMessage(args))
			return wantError(c, "syscall."+name, args+" in branch [0] of a two-branch parallel", err, carrier.CodeSyscallError, "")
		})
	}
}
