package kernel

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// TerminalError: the operation needs an execution that has not ended.
type TerminalError struct{ ExecutionID, Status string }

func (e *TerminalError) Error() string {
	return fmt.Sprintf("execution %q is already %s", e.ExecutionID, e.Status)
}

// Cancel ends a running or parked execution with EXECUTION_CANCELLED {reason?} (the wire ABI's
// execution.cancel). A live driver of the execution loses its next append to the store's
// concurrency control and stops. A terminal execution is a *TerminalError, nothing appended.
func (rt *Runtime) Cancel(ctx context.Context, executionID, reason string) (Result, error) {
	l, err := rt.load(ctx, executionID)
	if err != nil {
		return Result{}, err
	}
	st := l.st
	switch st.Status {
	case fold.StatusPending:
		return Result{}, fmt.Errorf("cancel %q: %w (empty log)", executionID, ErrNotFound)
	case fold.StatusCompleted, fold.StatusFailed, fold.StatusCancelled, fold.StatusContinued:
		return Result{ExecutionID: executionID, Status: st.Status}, &TerminalError{ExecutionID: executionID, Status: st.Status}
	}
	def, err := rt.flowOf(l)
	if err != nil {
		return Result{}, err
	}
	var r any
	if reason != "" {
		r = reason
	}
	run := newRun(rt, ctx, executionID, def, st)
	defer run.cancel()
	run.mu.Lock()
	err = run.appendLocked(newEvent{eventType: manifest.ExecutionCancelled, payload: obj("reason", r)})
	run.mu.Unlock()
	if err != nil {
		return Result{ExecutionID: executionID, Status: st.Status}, err
	}
	if rt.cfg.Timers != nil {
		if w, ok := wakeAtOf(st); ok {
			_ = rt.cfg.Timers.Cancel(ctx, Timer{ExecutionID: executionID, WakeAt: w})
		}
	}
	return Result{ExecutionID: executionID, Status: fold.StatusCancelled, Appended: run.appended}, nil
}
