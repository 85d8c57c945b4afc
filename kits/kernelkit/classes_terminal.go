package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// terminalClassChecks: resumeAs is the way out of a terminal execution (spec §5, I-WIRE-29).
func terminalClassChecks() []kitCheck {
	return []kitCheck{
		check("kernel/terminal/resumeas", spec.Must, "execution.resumeAs {flowId, input, attach: true} onto a completed, a failed and a cancelled execution is accepted with a driver token: the log gains EXECUTION_MIGRATED {migratedInput} and the execution runs again, its driver's complete answered status completed",
			kkTerminalResumeAs, "I-WIRE-29", "S5.resumeas.crashed-namespace-only", "S5.resumeas.transform-recorded", "I-WIRE-15"),
	}
}

func kkTerminalResumeAs(ctx context.Context, c *Case) error {
	statuses := []string{"completed", "failed", "cancelled"}
	for i, status := range statuses {
		c.Progress(i, len(statuses))
		d, err := ended(ctx, c, status)
		if err != nil {
			return err
		}
		what := fmt.Sprintf("flowId kit.migrated onto the %s execution, attach", status)
		var a carrier.Attached
		p := map[string]any{"executionId": d.ExecutionID, "flowId": "kit.migrated", "input": map[string]any{"from": status}, "attach": true}
		if err := c.Store.Call(ctx, carrier.MethodResumeAs, p, &a); err != nil || a.Driver == "" {
			return c.Cite("I-WIRE-29", "S5.resumeas.crashed-namespace-only").Failf(carrier.MethodResumeAs, what, show(err, "no driver token"), "accepted, with a driver token (resumeAs is the way out of a terminal execution)")
		}
		log, err := logOf(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		migrated := false
		for _, e := range log {
			if e.EventType == manifest.ExecutionMigrated {
				var m struct {
					MigratedInput json.RawMessage `json:"migratedInput"`
				}
				_ = json.Unmarshal(e.Payload, &m)
				migrated = sameJSON(m.MigratedInput, fmt.Sprintf(`{"from":%q}`, status))
			}
		}
		if !migrated {
			return c.Cite("S5.resumeas.transform-recorded", "I-WIRE-15").Failf("log", d.ExecutionID+" after execution.resumeAs "+what, entries(log), fmt.Sprintf(`an EXECUTION_MIGRATED {migratedInput: {"from":%q}}`, status))
		}
		d.Token = a.Driver
		if err := complete(ctx, c, d, "again"); err != nil {
			return err
		}
	}
	return nil
}

// entries lists a log's event types.
func entries(log []spi.Envelope) string {
	s := ""
	for i, e := range log {
		if i > 0 {
			s += " "
		}
		s += e.EventType
	}
	return s
}
