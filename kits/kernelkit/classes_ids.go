package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
)

// idClassChecks: a step id is the caller's string, byte for byte (spec §2, I-WIRE-61).
func idClassChecks() []kitCheck {
	return []kitCheck{
		check("kernel/syscall/step-id-exact", spec.Must, "two steps whose ids differ only in their Unicode normal form (e + U+0301, then é U+00E9) are two steps: each runs and answers its own input, and the log records each STEP_STARTED and STEP_COMPLETED with the id its call gave, byte for byte",
			kkStepIDExact, "I-WIRE-61"),
	}
}

func kkStepIDExact(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "step-ids")
	if err != nil {
		return err
	}
	ids := []string{"cafe\u0301", "caf\u00e9"}
	for i, id := range ids {
		args := fmt.Sprintf(`{"task":{"id":%s,"toolId":"echo"},"input":%d}`, mustJSON(id), i+1)
		v, err := syscall(ctx, c, d, "execute", args)
		if err != nil {
			return err
		}
		if !sameJSON(v, fmt.Sprint(i+1)) {
			return c.Cite("I-WIRE-61").Failf("syscall.execute", fmt.Sprintf("%s (step id %+q)", args, id), string(v), fmt.Sprintf("%d (its own input: the step is not the other id's)", i+1))
		}
	}
	log, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	var got []string
	for _, e := range log {
		if e.EventType != manifest.StepStarted && e.EventType != manifest.StepCompleted {
			continue
		}
		var p struct {
			StepID string `json:"stepId"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		got = append(got, fmt.Sprintf("%s %+q", e.EventType, p.StepID))
	}
	var want []string
	for _, id := range ids {
		want = append(want, fmt.Sprintf("%s %+q", manifest.StepStarted, id), fmt.Sprintf("%s %+q", manifest.StepCompleted, id))
	}
	if !slices.Equal(got, want) {
		return c.Cite("I-WIRE-61").Diff("log", d.ExecutionID+" (step events, ids quoted as escapes)", want, got)
	}
	return nil
}
