package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/spf13/cobra"
)

// checkOutputs checks, before a run, that every output can be written whole and that no two are
// one file (outfile.Check; "-" is this process's stdout). The run then never ends in a path it
// cannot write.
func checkOutputs(outs []outfile.Output) error { return outfile.Check(outs, os.Stdout) }

// writeOutputs writes every output asked for, each whole ("-" to stdout), scrubbed of every secret
// the run was given: every file a verb writes goes through here.
func writeOutputs(cmd *cobra.Command, outs []outfile.Output) error {
	return outfile.WriteAll(outs, cmd.OutOrStdout(), secretsOf(cmd).Bytes)
}

// invokedAs is how reproducing commands name this binary: as the user invoked it, or the README's
// `go run ./cmd/loom-conform-full` when it runs from go run's (or go test's) build cache.
func invokedAs(argv0 string) string {
	switch {
	case argv0 == "":
		return "loom-conform"
	case strings.Contains(argv0, "go-build") || strings.HasSuffix(argv0, ".test"):
		return "go run ./cmd/loom-conform-full"
	}
	return shq.Quote(argv0)
}

// positiveDuration refuses a timeout that is not positive.
func positiveDuration(flag string, d interface{ Nanoseconds() int64 }) error {
	if d.Nanoseconds() <= 0 {
		return fmt.Errorf("%s %v: want a positive duration such as 10s", flag, d)
	}
	return nil
}

// needs refuses a flag given without the flag it only makes sense with (needs[flag] = required
// flag): silently ignored, it would let a run look stricter than it was.
func needs(cmd *cobra.Command, needs map[string]string) error {
	for flag, other := range needs {
		if cmd.Flags().Changed(flag) && !cmd.Flags().Changed(other) {
			return cliverb.BadInput("%s: --%s needs --%s", cmd.Name(), flag, other)
		}
	}
	return nil
}
