package kernel

import (
	"errors"
	"fmt"
)

// ErrNotFound: the execution has no log, or names a flow the runtime does not know.
var ErrNotFound = errors.New("not found")

// ExecutionExistsError: Start on an execution id whose log is not empty.
type ExecutionExistsError struct{ ExecutionID string }

func (e *ExecutionExistsError) Error() string {
	return fmt.Sprintf("start %q: the execution already has a log (resume or recover it instead)", e.ExecutionID)
}

// UnknownFlowError: the log names a flow (EXECUTION_STARTED flowId) the runtime has no code for.
type UnknownFlowError struct{ FlowID string }

func (e *UnknownFlowError) Error() string { return fmt.Sprintf("unknown flow %q", e.FlowID) }

// UnknownSyscallError: Context.Call with a name that is not in manifest.Syscalls().
type UnknownSyscallError struct{ Name string }

func (e *UnknownSyscallError) Error() string {
	return fmt.Sprintf("unknown syscall %q (not in the kernel syscall table)", e.Name)
}

// SyscallDisabledError: a syscall whose feature flag is off (spec §2).
type SyscallDisabledError struct{ Name, Feature string }

func (e *SyscallDisabledError) Error() string {
	return fmt.Sprintf("syscall %q is disabled: enable kernel feature %q", e.Name, e.Feature)
}

// SyscallError: a syscall was called with bad arguments (empty step id, reserved decision id,
// input with no JSON form, suspend inside parallel). Nothing was appended.
type SyscallError struct {
	Syscall string
	Reason  string
}

func (e *SyscallError) Error() string { return fmt.Sprintf("%s: %s", e.Syscall, e.Reason) }

// StepFailedError is an untyped step failure as the flow sees it (live or, after a crash, again
// live: untyped failures are re-executed, spec §4.1). Degraded is set when a typed failure was
// degraded ("over-cap", "invalid-payload", "undeclared-channel").
type StepFailedError struct {
	StepID   string
	Attempt  int
	Message  string
	Degraded string
	Timeout  bool
}

func (e *StepFailedError) Error() string {
	s := fmt.Sprintf("step %q attempt %d failed: %s", e.StepID, e.Attempt, e.Message)
	if e.Degraded != "" {
		s += " (typed failure degraded: " + e.Degraded + ")"
	}
	return s
}

// StepCancelledError: the effect returned a cancellation.
type StepCancelledError struct{ StepID, Reason string }

func (e *StepCancelledError) Error() string {
	return fmt.Sprintf("step %q cancelled: %s", e.StepID, e.Reason)
}

// DeciderError: a decider returned an error; nothing was recorded.
type DeciderError struct {
	ID  string
	Err error
}

func (e *DeciderError) Error() string {
	return fmt.Sprintf("decide %q: decider failed: %v", e.ID, e.Err)
}
func (e *DeciderError) Unwrap() error { return e.Err }

// QuotaExceededError: admission control refused an effect because a budget is spent (spec §8).
type QuotaExceededError struct {
	StepID    string
	Dimension string
	Limit     float64
	Used      float64
}

func (e *QuotaExceededError) Error() string {
	return fmt.Sprintf("step %q refused: budget for %s spent (%g used, limit %g)", e.StepID, e.Dimension, e.Used, e.Limit)
}

// FlowPanicError: the flow (or a parallel branch) panicked. The run is treated as a crash:
// nothing is appended for it, the execution stays running and can be recovered.
type FlowPanicError struct {
	ExecutionID string
	Value       any
}

func (e *FlowPanicError) Error() string {
	return fmt.Sprintf("execution %q: flow panicked: %v (treated as a crash; nothing appended)", e.ExecutionID, e.Value)
}

// FlowTimeoutError: the run did not finish within its deadline. The flow goroutine is abandoned:
// every later syscall it makes appends nothing.
type FlowTimeoutError struct {
	ExecutionID string
	Err         error
}

func (e *FlowTimeoutError) Error() string {
	return fmt.Sprintf("execution %q: run abandoned: %v (nothing more is appended)", e.ExecutionID, e.Err)
}
func (e *FlowTimeoutError) Unwrap() error { return e.Err }

// StoreError: the event store refused or failed an append or read; the run stopped there (a crash
// from the log's point of view).
type StoreError struct {
	ExecutionID string
	Op          string
	Err         error
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("execution %q: store %s: %v", e.ExecutionID, e.Op, e.Err)
}
func (e *StoreError) Unwrap() error { return e.Err }

// NotRunnableError: Drive on an execution that is parked or terminal has nothing to re-run.
type NotRunnableError struct {
	ExecutionID string
	Status      string
}

func (e *NotRunnableError) Error() string {
	return fmt.Sprintf("execution %q is %s", e.ExecutionID, e.Status)
}

// ReplayDivergenceError: a read-only replay (of a parked or terminal execution) reached a syscall
// the log does not answer — the flow code no longer matches its log.
type ReplayDivergenceError struct {
	ExecutionID string
	EventType   string
}

func (e *ReplayDivergenceError) Error() string {
	return fmt.Sprintf("execution %q: replay diverged: the flow would append %s, which the log does not hold", e.ExecutionID, e.EventType)
}
