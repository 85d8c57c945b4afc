package cliverb

import (
	"errors"
	"fmt"
	"io"
)

// Exit codes shared by every verb of both binaries.
const (
	ExitOK       = 0
	ExitVerdict  = 1 // a negative verdict: incompatible, a failed check
	ExitBadInput = 2 // malformed input, flags or arguments
)

// ExitError carries an exit code and a message for stderr.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// BadInput wraps an error as exit 2 (malformed input or usage).
func BadInput(format string, a ...any) error {
	return &ExitError{Code: ExitBadInput, Err: fmt.Errorf(format, a...)}
}

// Verdict wraps an error as exit 1 (a negative verdict).
func Verdict(format string, a ...any) error {
	return &ExitError{Code: ExitVerdict, Err: fmt.Errorf(format, a...)}
}

// ExitCode maps an error from a verb to its exit code, printing the message. Cobra's own flag and
// argument errors are usage errors (exit 2).
func ExitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(stderr, "loom-conform:", err)
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitBadInput
}
