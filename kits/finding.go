package kits

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/kits/explore"
)

// FindingError is an exploration's disagreement with the reference: the violation of the first
// answer where the two part, and the shrunk script that reproduces it. Its text is the violation's,
// followed by the script, so every surface that prints failures prints the script too.
type FindingError struct {
	*Violation
	Finding explore.Finding
	// File is where the finding was written (Options.Findings), or "".
	File string
	// Replayed says the script was replayed as given (Options.Replay), not found and shrunk.
	Replayed bool
}

func (e *FindingError) Error() string {
	f := e.Finding
	head := fmt.Sprintf("minimal script (%d steps, shrunk in %d replays; the answers part at step %d)", len(f.Script.Steps), f.Tried, f.Mismatch.Step)
	if e.Replayed {
		head = fmt.Sprintf("replayed script (%d steps; the answers part at step %d)", len(f.Script.Steps), f.Mismatch.Step)
	}
	out := fmt.Sprintf("%s\n%s:\n%s", e.Violation.Error(), head, f.Script.Lines())
	if e.File != "" {
		out += fmt.Sprintf("written to %s; replay it: loom-conform certify KIND TARGET --replay %s (in Go: kits.Options{Replay: &script}, explore.ParseScript)\n", e.File, e.File)
	}
	return out
}

// exploreOptions are a case's Options.Findings and Options.Replay.
type exploreOptions struct {
	findings string
	replay   *explore.Script
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

// Replaying is the script the run replays (Options.Replay), or nil: an exploration check outside
// this package (the kernel kit's) runs that one script, as it is, instead of its rounds.
func (c *Case[T]) Replaying() *explore.Script { return c.explore.replay }

// findingFileOf is where the finding an error carries was written, if anywhere.
func findingFileOf(err error) string {
	var fe *FindingError
	if errors.As(err, &fe) {
		return fe.File
	}
	return ""
}

// explored reports m, found by s and shrunk to f, as a violation of the clauses m cites, and
// writes f to the findings directory when the run has one.
func explored[T any](c *Case[T], f explore.Finding) error {
	m := f.Mismatch
	v := &Violation{Check: c.check.ID, Clauses: m.Clauses, Op: m.Op, Args: m.Args, Got: m.Got, Want: m.Want, Diff: m.Diff}
	fe := &FindingError{Violation: v, Finding: f, Replayed: c.explore.replay != nil}
	if dir := c.explore.findings; dir != "" && !fe.Replayed {
		path := filepath.Join(dir, f.FileName())
		if err := outfile.WriteFile(path, f.File()); err != nil {
			return fmt.Errorf("%s: writing the finding: %w (the finding: %v)", c.check.ID, err, fe)
		}
		fe.File = path
	}
	return fe
}
