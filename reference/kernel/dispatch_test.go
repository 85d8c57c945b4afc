package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
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

// Reference: spec §5 — two callers resuming the same park at once: exactly one answer is recorded;
// the other fails on the store's concurrency control (or fence) with nothing of it appended.
func TestConcurrentResumesOneWins(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", gateFlow(h))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	errs := make(chan error, 2)
	for _, p := range []string{`"a"`, `"b"`} {
		go func() {
			_, err := h.rt.Resume(ctx, "x", "approve", json.RawMessage(p))
			errs <- err
		}()
	}
	var failed int
	for range 2 {
		if err := <-errs; err != nil {
			var refused *ingress.ResumeRefusedError
			if !errors.Is(err, spi.ErrConflict) && !errors.Is(err, spi.ErrFenced) && !errors.As(err, &refused) {
				failf(t, "dispatch/concurrent-resume", []string{"S5.ingress.one-entry-per-suspend"}, "loser's error", err, "conflict, fenced or refused")
			}
			failed++
		}
	}
	st := h.state("x")
	if failed != 1 || len(st.Variables.ResumePayloads) != 1 || st.Status != fold.StatusCompleted {
		failf(t, "dispatch/concurrent-resume", []string{"S5.ingress.one-entry-per-suspend"}, "failures, entries, status", []any{failed, len(st.Variables.ResumePayloads), st.Status}, "1, 1, completed")
	}
}
