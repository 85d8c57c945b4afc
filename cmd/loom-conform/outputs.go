package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/spf13/cobra"
)

// output is one report a verb writes: its flag, its path ("" = not asked for, "-" = stdout) and
// the function that writes it.
type output struct {
	flag, path string
	write      func(io.Writer) error
}

// toStdout reports whether one of outs goes to stdout (the verb then moves its own stdout text to
// stderr, so stdout holds exactly that report).
func toStdout(outs []output) bool {
	for _, o := range outs {
		if o.path == "-" {
			return true
		}
	}
	return false
}

// checkOutputs checks, before a run, that every output can be written: at most one is "-", no two
// name the same file, each file's directory exists and the file is not a directory and is
// writable. The run then never ends in an unwritable path.
func checkOutputs(outs []output) error {
	seen := map[string]string{}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		key := o.path
		if o.path != "-" {
			if abs, err := filepath.Abs(o.path); err == nil {
				key = abs
			}
		}
		if prev, dup := seen[key]; dup {
			if o.path == "-" {
				return fmt.Errorf("%s -: %s already writes to stdout (at most one output may be -)", o.flag, prev)
			}
			return fmt.Errorf("%s %s: %s writes to the same file", o.flag, o.path, prev)
		}
		seen[key] = o.flag
		if o.path == "-" {
			continue
		}
		if err := writable(o.path); err != nil {
			return fmt.Errorf("%s %s: %v", o.flag, o.path, err)
		}
	}
	return nil
}

// writable checks that path can be created or overwritten, leaving no file behind that was not
// there before.
func writable(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return errors.New("is a directory")
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("directory %s does not exist", dir)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(path)
}

// writeOutputs writes every output asked for ("-" to stdout).
func writeOutputs(outs []output, stdout io.Writer) error {
	for _, o := range outs {
		switch o.path {
		case "":
			continue
		case "-":
			if err := o.write(stdout); err != nil {
				return fmt.Errorf("%s -: %w", o.flag, err)
			}
			continue
		}
		f, err := os.Create(o.path)
		if err != nil {
			return fmt.Errorf("%s: %w", o.flag, err)
		}
		if err := o.write(f); err != nil {
			f.Close()
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
	}
	return nil
}

// invokedAs is how reproducing commands name this binary: as the user invoked it, or the README's
// `go run ./cmd/loom-conform` when it runs from go run's (or go test's) build cache.
func invokedAs(argv0 string) string {
	switch {
	case argv0 == "":
		return "loom-conform"
	case strings.Contains(argv0, "go-build") || strings.HasSuffix(argv0, ".test"):
		return "go run ./cmd/loom-conform"
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
			return badInput("%s: --%s needs --%s", cmd.Name(), flag, other)
		}
	}
	return nil
}
