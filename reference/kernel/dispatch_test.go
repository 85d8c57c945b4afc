package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// Reference: spec §6 — re-dispatch to any worker resumes from the journal; a worker rebuilds state
// from the shared store; a fenced zombie cannot write (I-KERNEL-20).
func TestRedispatchFencesZombie(t *testing.T) {
	h := newHarness(t, nil)
	entered := make(chan struct{})
	release := make(chan struct{})
	slowCalls := 0
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		out, err := c.Run("slow", func(*EffectContext, json.RawMessage) (any, error) {
			slowCalls++
			if slowCalls == 1 {
				close(entered)
				<-release // the first worker hangs here: a zombie
			}
			return "done", nil
		}, nil)
		if err != nil {
			return nil, err
		}
		if err := c.Emit("after", 1); err != nil {
			return nil, err
		}
		return out, nil
	})
	ctx := testCtx(t)
	zombie := h.rt
	zres := make(chan error, 1)
	go func() {
		_, err := zombie.Start(ctx, "F", "x", nil)
		zres <- err
	}()
	<-entered
	// A second worker: a fresh runtime over the same store re-drives the crashed-looking execution.
	worker := h.restart(nil)
	res := h.ok(worker.Recover(ctx, "x"))
	if res.Status != fold.StatusCompleted {
		t.Fatalf("redispatch: Recover status %s, want completed", res.Status)
	}
	close(release)
	err := <-zres
	if !errors.Is(err, spi.ErrFenced) {
		failf(t, "dispatch/zombie", []string{"S6.fencing.zombie", "I-KERNEL-20"}, "zombie's run error", err, "ErrFenced")
	}
	st := h.state("x")
	if st.Status != fold.StatusCompleted || len(emitsOf(h.log("x"), "after")) != 1 {
		failf(t, "dispatch/redispatch", []string{"S6.resume.is-migration", "S6.dispatch.stateless-workers"}, "log", types(h.log("x")), "one completion, one emit")
	}
	_ = context.Background
}
