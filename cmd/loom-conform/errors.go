package main

import (
	"errors"
	"fmt"
	"io"
)

// Exit codes shared by every verb.
const (
	exitOK       = 0
	exitVerdict  = 1 // a negative verdict: incompatible, a failed check
	exitBadInput = 2 // malformed input, flags or arguments
)

// exitError carries an exit code and a message for stderr.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput wraps an error as exit 2 (malformed input or usage).
func badInput(format string, a ...any) error {
	return &exitError{code: exitBadInput, err: fmt.Errorf(format, a...)}
}

// verdict wraps an error as exit 1 (a negative verdict).
func verdict(format string, a ...any) error {
	return &exitError{code: exitVerdict, err: fmt.Errorf(format, a...)}
}

// exitCode maps an error from a verb to its exit code, printing the message. Cobra's own flag and
// argument errors are usage errors (exit 2).
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "loom-conform:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitBadInput
}
