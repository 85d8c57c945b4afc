//go:build loom_mutant_initwork

package main

import (
	"fmt"
	"regexp"
)

// A broken build, never released: the mutant cli-build/start/init-work (fitness.Mutants). Every
// command pays a package-level initialisation of the kind I-PERF-10 forbids — 250 patterns
// compiled and kept, about what a general validator compiling its meta-schemas at start cost —
// which the perf/cli-start gate must reject. Built only with -tags loom_mutant_initwork.
var initWork = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, 0, 250)
	for i := range 250 {
		out = append(out, regexp.MustCompile(fmt.Sprintf(`^(?:[a-z]+|%d)[0-9]{1,4}\w*(?:-(?:x|y|z)+)?$`, i)))
	}
	return out
}()
