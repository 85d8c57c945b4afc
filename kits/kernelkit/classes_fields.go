package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// fieldClassChecks: getState's members besides the state agree with it through an execution's
// whole life (I-WIRE-63).
func fieldClassChecks() []kitCheck {
	return []kitCheck{
		check("kernel/state/fields", spec.Must, "execution.getState's executionId, status, suspendedOn, driver and awaitingDriver agree with its state after a start (running, attached), a park (suspended on its gate, none, not awaiting), a resume without attach (running, none, awaiting), an attach (attached) and the complete (completed, none, not awaiting, no suspendedOn)",
			kkStateFields, "I-WIRE-63"),
	}
}

func kkStateFields(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "fields")
	if err != nil {
		return err
	}
	agrees := func(when, driver string, awaiting bool) error {
		st, err := stateOf(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		var s struct {
			Status    string `json:"status"`
			Variables struct {
				SuspendedOn struct {
					On string `json:"on"`
				} `json:"_suspendedOn"`
			} `json:"variables"`
		}
		_ = json.Unmarshal(st.State, &s)
		on := ""
		if s.Status == "suspended" {
			on = s.Variables.SuspendedOn.On
		}
		got := fmt.Sprintf("executionId %q status %q suspendedOn %q driver %q awaitingDriver %v", st.ExecutionID, st.Status, st.SuspendedOn, st.Driver, st.AwaitingDriver)
		want := fmt.Sprintf("executionId %q status %q suspendedOn %q driver %q awaitingDriver %v", d.ExecutionID, s.Status, on, driver, awaiting)
		if got != want {
			return c.Cite("I-WIRE-63").Failf(carrier.MethodGetState, d.ExecutionID+" "+when+" (state.status "+s.Status+")", got, want)
		}
		return nil
	}
	if err := agrees("after the start", "attached", false); err != nil {
		return err
	}
	if err := park(ctx, c, d, "go"); err != nil {
		return err
	}
	if err := agrees("after a park on gate go", "none", false); err != nil {
		return err
	}
	if err := c.Store.Call(ctx, carrier.MethodResume, map[string]any{"executionId": d.ExecutionID, "eventType": "go", "payload": 1}, nil); err != nil {
		return c.Failf(carrier.MethodResume, "go (no attach)", err, "accepted")
	}
	if err := agrees("after a resume of gate go without attach", "none", true); err != nil {
		return err
	}
	a, err := attach(ctx, c, d.ExecutionID, "")
	if err != nil {
		return err
	}
	d.Token = a.Driver
	if err := agrees("after an attach", "attached", false); err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "suspend", `{"on":"go"}`); err != nil {
		return err
	}
	if err := complete(ctx, c, d, "done"); err != nil {
		return err
	}
	return agrees("after the complete", "none", false)
}
