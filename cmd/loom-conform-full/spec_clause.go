package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/internal/runfilter"
	"github.com/loom-kernel/loom-conform/spec"
)

// runClauses prints the named clauses whole: what `loom-conform spec` lists on one line, and for
// an interpretation its note, the words a consequence rests on, and a choice's legal options, ours
// first. An id the registry does not have is bad input, naming the nearest ids.
func runClauses(out io.Writer, ids []string, asJSON bool) error {
	var all []string
	for _, c := range spec.Clauses() {
		all = append(all, c.ID)
	}
	var cs []spec.Clause
	for _, id := range ids {
		c, ok := spec.Lookup(id)
		if !ok {
			return cliverb.BadInput("spec: no clause %q (nearest: %s)", id, strings.Join(runfilter.Nearest(id, sameFamily(id, all), 5), ", "))
		}
		cs = append(cs, c)
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(cs)
	}
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString("\n")
		}
		requirement := c.Requirement()
		binds := string(c.Source)
		if c.Tier != "" {
			binds += ", " + string(c.Tier)
		}
		fmt.Fprintf(&b, "%s — %s\n  %s, %s, %s (%s)\n", c.ID, c.Summary, c.Section, c.Level, binds, requirement)
		if c.Rests != "" {
			fmt.Fprintf(&b, "  rests on: %s\n", c.Rests)
		}
		if c.Note != "" {
			fmt.Fprintf(&b, "  why: %s\n", c.Note)
		}
		if len(c.Options) > 0 {
			b.WriteString("  legal options (a check holds a target to one of them, required, and to ours, recommended):\n")
			for j, o := range c.Options {
				ours := ""
				if j == 0 {
					ours = " (ours)"
				}
				fmt.Fprintf(&b, "    %d. %s%s\n", j+1, o, ours)
			}
		}
		if c.Source == spec.SourceInterpretation {
			fmt.Fprintf(&b, "  full text: docs/interpretations.md#%s\n", reportview.InterpretationAnchor(c))
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// sameFamily is the ids that share id's family (what precedes its last - or .: I-FOLD-, S4.fold.),
// or all of them when none does.
func sameFamily(id string, all []string) []string {
	prefix := id[:strings.LastIndexAny(id, "-.")+1]
	var out []string
	for _, x := range all {
		if prefix != "" && strings.HasPrefix(x, prefix) {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}
