package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// profileChecks: the conformance profile's state is per execution (I-WIRE-17, I-WIRE-18): a
// kernel serving many executions answers each as a fresh one would.
func profileChecks() []kitCheck {
	return []kitCheck{
		check("kernel/profile/counter", spec.Must, "the counter fake counts per execution and key: two executions calling it in turn each count 1, 2 for a key, and 1 for a new key",
			kkProfileCounter, "I-WIRE-18", "I-WIRE-8"),
		check("kernel/profile/budget", spec.Must, "a budget is one execution's: an execution started with its own caps does not lend them to the next, one that spent the profile's 10 tokens does not spend another's, and each is refused only when its own caps are spent",
			kkProfileBudget, "I-WIRE-17", "S8.budget.may-cap", "I-WIRE-8"),
	}
}

func kkProfileCounter(ctx context.Context, c *Case) error {
	a, err := startExec(ctx, c, "counter")
	if err != nil {
		return err
	}
	b, err := startExec(ctx, c, "counter")
	if err != nil {
		return err
	}
	steps := []struct {
		d         *carrier.Driver
		who, step string
		key       string
		want      int
	}{
		{a, "A", "a1", "k", 1}, {b, "B", "b1", "k", 1}, {a, "A", "a2", "k", 2}, {b, "B", "b2", "k", 2}, {b, "B", "b3", "other", 1},
	}
	for i, s := range steps {
		c.Progress(i, len(steps))
		args := fmt.Sprintf(`{"task":{"id":%q,"toolId":"counter"},"input":{"key":%q}}`, s.step, s.key)
		v, err := syscall(ctx, c, s.d, "execute", args)
		if err != nil {
			return err
		}
		want := fmt.Sprintf(`{"key":%q,"n":%d}`, s.key, s.want)
		if !sameJSON(v, want) {
			return c.Failf("syscall.execute", "execution "+s.who+" "+args, string(v), want+" (counted in this execution only)")
		}
	}
	return nil
}

func kkProfileBudget(ctx context.Context, c *Case) error {
	start := func(name string, budget map[string]any) (*carrier.Driver, error) {
		id := c.ExecID(name)
		p := map[string]any{"flowId": "kit." + name, "executionId": id}
		if budget != nil {
			p["budget"] = budget
		}
		var a carrier.Attached
		if err := c.Store.Call(ctx, carrier.MethodStart, p, &a); err != nil {
			return nil, c.Failf(carrier.MethodStart, string(mustJSON(p)), err, "a started execution")
		}
		return &carrier.Driver{C: c.Store, ExecutionID: id, Token: a.Driver}, nil
	}
	steps := 0
	spend := func(d *carrier.Driver, who string, tokens int, refused bool) error {
		steps++
		args := fmt.Sprintf(`{"task":{"id":"spend-%d","toolId":"meter"},"input":{"tokens":%d}}`, steps, tokens)
		if _, err := syscall(ctx, c, d, "execute", args); err != nil {
			return err
		}
		over := fmt.Sprintf(`{"task":{"id":"over-%d","toolId":"echo"},"input":1}`, steps)
		_, _, err := d.Syscall(ctx, "execute", json.RawMessage(over))
		if refused {
			return wantError(c, "syscall.execute", fmt.Sprintf("%s after spending %d tokens", who, tokens), err, carrier.CodeQuotaExceeded, "")
		}
		if err != nil {
			return c.Failf("syscall.execute", fmt.Sprintf("%s after spending %d tokens", who, tokens), err, "success (its own caps are not spent)")
		}
		return nil
	}
	own, err := start("budget-own", map[string]any{"tokens": 3})
	if err != nil {
		return err
	}
	if err := spend(own, "an execution with a budget of 3 tokens", 3, true); err != nil {
		return err
	}
	next, err := start("budget-next", nil)
	if err != nil {
		return err
	}
	if err := spend(next, "the next execution, started with no budget (the profile's 10 tokens)", 5, false); err != nil {
		return err
	}
	big, err := start("budget-big", map[string]any{"tokens": 20})
	if err != nil {
		return err
	}
	if err := spend(big, "an execution with a budget of 20 tokens", 15, false); err != nil {
		return err
	}
	c.Progress(3, 4)
	return spend(next, "the execution with the profile's budget, 5 more (10 of 10)", 5, true)
}
