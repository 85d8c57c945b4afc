package kits

import (
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/kits/explore"
)

// FindingError is an exploration's disagreement with the reference: the violation of the first
// answer where the two part, and the shrunk script that reproduces it. Its text is the violation's,
// followed by the script, so every surface that prints failures prints the script too.
type FindingError struct {
	*Violation
	Finding explore.Finding
}

func (e *FindingError) Error() string {
	f := e.Finding
	return fmt.Sprintf("%s\nminimal script (%d steps, shrunk in %d replays; the answers part at step %d):\n%s",
		e.Violation.Error(), len(f.Script.Steps), f.Tried, f.Mismatch.Step, f.Script.Lines())
}

// Unwrap exposes the violation.
func (e *FindingError) Unwrap() error { return e.Violation }

// findingOf is the finding an error carries, if any.
func findingOf(err error) *explore.Finding {
	var fe *FindingError
	if errors.As(err, &fe) {
		return &fe.Finding
	}
	return nil
}

// explored reports m, found by s and shrunk to f, as a violation of the clauses m cites.
func explored[T any](c *Case[T], f explore.Finding) error {
	m := f.Mismatch
	v := &Violation{Check: c.check.ID, Clauses: m.Clauses, Op: m.Op, Args: m.Args, Got: m.Got, Want: m.Want, Diff: m.Diff}
	return &FindingError{Violation: v, Finding: f}
}
