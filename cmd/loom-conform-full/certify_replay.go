package main

import (
	"fmt"
	"io"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/explore"
)

// writeReplayed says what replaying a findings file found: the same disagreement (its failure is
// in the run's causes above), or that it no longer reproduces.
func writeReplayed(w io.Writer, file string, s *explore.Script, rep *certify.Report) {
	for _, c := range rep.Checks {
		if c.ID != s.Check {
			continue
		}
		switch c.Verdict {
		case kits.Pass:
			fmt.Fprintf(w, "replay %s: %s no longer reproduces (the target answered all %d steps as the reference does)\n", file, s.Check, len(s.Steps))
		case kits.Fail:
			fmt.Fprintf(w, "replay %s: %s reproduces: %s\n", file, s.Check, headLine(c.Message))
		default:
			fmt.Fprintf(w, "replay %s: %s ended %s: %s\n", file, s.Check, c.Verdict, headLine(c.Message))
		}
		return
	}
	fmt.Fprintf(w, "replay %s: %s did not run (is the seam served?)\n", file, s.Check)
}

func headLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
