package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/internal/cputime"
	"github.com/loom-kernel/loom-conform/internal/jsonbase"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// BuildHello builds a hello-world Go program with the toolchain that builds loom-conform, pure Go
// as `make build` is, into dir: the floor the command line's start is compared with.
func BuildHello(dir string) (string, error) {
	src := filepath.Join(dir, "hellosrc")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	for name, text := range map[string]string{
		"go.mod":  "module hello\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	bin := filepath.Join(dir, "hello")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build hello: %v: %s", err, out)
	}
	return bin, nil
}

// childRun runs argv with stdin from in ("" = none) and stdout discarded, and returns the child's
// CPU time and the wall time from start to exit.
func childRun(in string, argv ...string) (cpu, wall time.Duration, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if in != "" {
		f, err := os.Open(in)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%v: %v: %s", argv, err, stderr.Bytes())
	}
	wall = time.Since(t)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), wall, nil
}

// Start is one program's start-up: the fastest of the rounds in CPU time and in wall time.
type Start struct {
	Name      string
	CPU, Wall time.Duration
}

// Startup measures, interleaved over rounds, a hello-world Go program, `loom-conform version` and
// `loom-conform fold` of an empty log (empty is a file of no bytes in dir), keeping each one's
// fastest round; the first row is the floor the others are compared with (I-PERF-10).
func Startup(cli, hello, dir string, rounds int) ([]Start, error) {
	empty := filepath.Join(dir, "empty.ndjson")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		return nil, err
	}
	runs := []struct {
		name string
		argv []string
	}{
		{"hello-world Go program (same toolchain)", []string{hello}},
		{"`loom-conform version`", []string{cli, "version"}},
		{"`loom-conform fold EMPTY`", []string{cli, "fold", empty}},
	}
	out := make([]Start, len(runs))
	for i, r := range runs {
		out[i] = Start{Name: r.name, CPU: 1 << 62, Wall: 1 << 62}
	}
	for r := range rounds {
		for k := range runs {
			i := (k + r) % len(runs)
			cpu, wall, err := childRun("", runs[i].argv...)
			if err != nil {
				return nil, err
			}
			out[i].CPU, out[i].Wall = min(out[i].CPU, cpu), min(out[i].Wall, wall)
		}
	}
	return out, nil
}

// Stage is the CPU time of one stage of `loom-conform fold LOG` (the fastest of the rounds).
type Stage struct {
	Name string
	CPU  time.Duration
}

// Stages measures the command's stages on one log file, interleaved over rounds, each the fastest
// round: the baseline (encoding/json's bare decode end to end: jsondecode, built beside cli, a
// child process reading the file as the command does), the same decode in this process, the
// process start (`loom-conform version`), reading the file, decoding it (fold.DecodeLogBytes:
// every envelope kept), decoding and folding it (fold.FoldBytes, the command's path for a file up
// to 64 MiB), writing the state (fold.AppendState), and the command end to end (child CPU). A
// regression shows in the stage that grew.
func Stages(cli, file string, rounds int) ([]Stage, error) {
	log, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	st, err := fold.FoldBytes(fold.Current(), nil, log)
	if err != nil {
		return nil, err
	}
	inProc := func(f func() error) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			runtime.GC()
			c := cputime.Process()
			err := f()
			return cputime.Process() - c, err
		}
	}
	child := func(argv ...string) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			cpu, _, err := childRun("", argv...)
			return cpu, err
		}
	}
	stages := []struct {
		name string
		run  func() (time.Duration, error)
	}{
		{"encoding/json, bare decode end to end: `jsondecode LOG` (child; the baseline)", child(filepath.Join(filepath.Dir(cli), "jsondecode"), file)},
		{"encoding/json, bare decode in process", inProc(func() error { return jsonbase.Decode(log) })},
		{"start: `loom-conform version` (child)", child(cli, "version")},
		{"read: the file into memory", inProc(func() error { _, err := os.ReadFile(file); return err })},
		{"decode: fold.DecodeLogBytes", inProc(func() error { _, err := fold.DecodeLogBytes(log); return err })},
		{"decode + fold: fold.FoldBytes", inProc(func() error { _, err := fold.FoldBytes(fold.Current(), nil, log); return err })},
		{"write: fold.AppendState", inProc(func() error { _, err := fold.AppendState(nil, st); return err })},
		{"end to end: `loom-conform fold LOG > /dev/null` (child)", child(cli, "fold", file)},
	}
	out := make([]Stage, len(stages))
	for i, s := range stages {
		out[i] = Stage{Name: s.name, CPU: 1 << 62}
	}
	for r := range rounds {
		for k := range stages {
			i := (k + r) % len(stages)
			d, err := stages[i].run()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", stages[i].name, err)
			}
			out[i].CPU = min(out[i].CPU, d)
		}
	}
	return out, nil
}
