package spi

import (
	"errors"
	"fmt"
)

// Sentinel errors of the SPI. Stores wrap them (directly or through the typed errors below) so
// callers can test with errors.Is; the JSON-RPC bridge maps each to a documented error code.
var (
	// ErrConflict: an optimistic-concurrency write lost — the sequence it wanted to append at is
	// taken, or (appendIfUnchanged) the log changed since the observation anchor.
	ErrConflict = errors.New("concurrency conflict")
	// ErrFenced: a fenced write carried a fence token that is no longer the current one (a zombie), or
	// acquireFenceIf found a different current token.
	ErrFenced = errors.New("fenced")
	// ErrNotFound: the thing asked for does not exist (SnapshotStore.LoadLatest with no snapshot,
	// BranchRegistry.Get of an unregistered id).
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists: a create that must not overwrite found something there (copyPrefix into a
	// non-empty execution, registering a branch id twice with different content).
	ErrAlreadyExists = errors.New("already exists")
	// ErrInvalidArgument: the call itself is malformed (empty execution id, non-dense batch, negative
	// bound, envelope of another execution). Nothing was changed.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrUnsupported: the method exists on the Go value but the store behind it does not implement
	// it (a decorator over a store that lacks it, a bridge to a server that did not advertise it).
	ErrUnsupported = errors.New("unsupported")
)

// ConflictError details an ErrConflict.
type ConflictError struct {
	ExecutionID string
	// Expected is the sequence the write wanted to append at (-1 for appendIfUnchanged).
	Expected int64
	// Actual is the next free sequence the store found (-1 if unknown).
	Actual int64
	Reason string
}

func (e *ConflictError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("concurrency conflict on execution %q: %s", e.ExecutionID, e.Reason)
	}
	return fmt.Sprintf("concurrency conflict on execution %q: append at sequence %d, next free is %d",
		e.ExecutionID, e.Expected, e.Actual)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// FencedError details an ErrFenced.
type FencedError struct {
	ExecutionID string
	Held        int64 // the token the caller presented (or expected, for acquireFenceIf)
	Current     int64 // the store's current token; meaningless when CurrentUnknown
	// CurrentUnknown says the error does not know the current token (a bridge whose error data
	// left it out). Stores that know it leave this false, so the zero value means "Current is set".
	CurrentUnknown bool
}

func (e *FencedError) Error() string {
	if e.CurrentUnknown {
		return fmt.Sprintf("execution %q is fenced: token %d presented, current token not reported", e.ExecutionID, e.Held)
	}
	return fmt.Sprintf("execution %q is fenced: token %d presented, current token is %d", e.ExecutionID, e.Held, e.Current)
}

// Is makes errors.Is(err, ErrFenced) true.
func (e *FencedError) Is(target error) bool { return target == ErrFenced }

// InvalidArgumentError details an ErrInvalidArgument: which operation, which argument, and why.
type InvalidArgumentError struct {
	Op       string
	Argument string
	Reason   string
}

func (e *InvalidArgumentError) Error() string {
	return fmt.Sprintf("%s: invalid %s: %s", e.Op, e.Argument, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidArgument) true.
func (e *InvalidArgumentError) Is(target error) bool { return target == ErrInvalidArgument }

// Invalid builds an *InvalidArgumentError.
func Invalid(op, argument, format string, args ...any) error {
	return &InvalidArgumentError{Op: op, Argument: argument, Reason: fmt.Sprintf(format, args...)}
}
