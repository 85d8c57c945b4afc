package kernelkit

import (
	"context"
	"encoding/json"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// budgetClassChecks: a budget execution.start gives caps every dimension it names (I-WIRE-17).
func budgetClassChecks() []kitCheck {
	return []kitCheck{
		check("kernel/budget/every-dimension", spec.Must, "a budget that caps two dimensions (costUsd and tokens) refuses an effect once either is spent, whichever the budget names first and whichever sorts first: the second effect after tokens, then costUsd, reached its cap is -32022 (kind quota-exceeded)",
			kkBudgetEveryDimension, "I-WIRE-17", "S8.budget.may-cap", "S8.budget.quota-exceeded"),
	}
}

func kkBudgetEveryDimension(ctx context.Context, c *Case) error {
	cases := []struct{ name, budget, spent, meter string }{
		// the spent cap is neither named first nor first in name order
		{"budget-tokens", `{"costUsd":100,"tokens":3}`, "tokens", `{"tokens":3}`},
		// the spent cap is named second but sorts first
		{"budget-cost", `{"tokens":100,"costUsd":1}`, "costUsd", `{"costUsd":1}`},
	}
	for i, k := range cases {
		c.Progress(i, len(cases))
		id := c.ExecID(k.name)
		var a carrier.Attached
		if err := c.Store.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "kit.budget", "executionId": id, "budget": json.RawMessage(k.budget)}, &a); err != nil {
			return c.Failf(carrier.MethodStart, "budget "+k.budget, err, "a started execution")
		}
		d := &carrier.Driver{C: c.Store, ExecutionID: id, Token: a.Driver}
		spend := `{"task":{"id":"spend","toolId":"meter"},"input":` + k.meter + `}`
		if _, err := syscall(ctx, c, d, "execute", spend); err != nil {
			return err
		}
		over := `{"task":{"id":"over","toolId":"meter"},"input":` + k.meter + `}`
		_, _, err := d.Syscall(ctx, "execute", json.RawMessage(over))
		what := over + " (budget " + k.budget + ", its " + k.spent + " cap reached by step spend)"
		if err := wantCode(c.Cite("I-WIRE-17", "S8.budget.may-cap", "S8.budget.quota-exceeded").Failf, "syscall.execute", what, err, carrier.CodeQuotaExceeded, "quota-exceeded"); err != nil {
			return err
		}
	}
	return nil
}
