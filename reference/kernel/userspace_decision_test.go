package kernel

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"
)

// Reference: spec §3 (kernel facts are never stamped; an emit the log does not prove MUST be
// appended), I-KERNEL-11 — a flow-level DECISION_RECORDED emit is decided by the emit rule like
// any other: appended again on every re-run, traced and counted, and folding the repeat changes
// neither the choice nor the first seq.
func TestUserspaceDecisionAppendedOnReRun(t *testing.T) {
	clauses := []string{"S3.emit.serve-append", "S3.emit.kernel-facts-unstamped", "I-KERNEL-11"}
	var mu sync.Mutex
	var decs []EmitDecision
	h := newHarness(t, func(c *Config) {
		c.Trace = func(_ string, d EmitDecision) { mu.Lock(); decs = append(decs, d); mu.Unlock() }
	})
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		if err := c.Emit("DECISION_RECORDED", map[string]any{"id": "u", "choice": 1}); err != nil {
			return nil, err
		}
		if _, err := c.Suspend(SuspendConfig{On: "g"}); err != nil {
			return nil, err
		}
		// a different choice for a recorded id is refused (spec §5), nothing appended
		if err := c.Emit("DECISION_RECORDED", map[string]any{"id": "u", "choice": 2}); err == nil {
			return nil, errors.New("a changed choice was accepted")
		}
		return "done", nil
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	first := h.state("x").Variables.Decisions["u"]
	h.ok(h.rt.Resume(ctx, "x", "g", json.RawMessage(`1`)))
	if got := emitsOf(h.log("x"), "DECISION_RECORDED"); len(got) != 2 {
		failf(t, "kernel/userspace-decision", clauses, "DECISION_RECORDED after one re-run", got, "two unstamped copies")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(decs) != 2 || !decs[1].Appended || decs[1].Stamped || decs[1].N != 0 || decs[1].Logged != 0 {
		failf(t, "kernel/userspace-decision", clauses, "Trace of the re-run's emit", decs, "[first, {N:0 Logged:0 Appended Stamped:false}]")
	}
	st := h.state("x")
	if d := st.Variables.Decisions["u"]; string(d.Choice) != "1" || d.Seq != first.Seq {
		failf(t, "kernel/userspace-decision", clauses, "folded decision u", d, first)
	}
	if st.Status != "completed" {
		failf(t, "kernel/userspace-decision", clauses, "status", st.Status, "completed")
	}
}
