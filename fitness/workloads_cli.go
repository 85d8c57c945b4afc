package fitness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/loom-kernel/loom-conform/internal/loggen"
)

// The command-line workloads run loom-conform as a user does, a child process each time, and
// charge each side the CPU time of the children it ran (timeBatch): they keep the binary's start
// and its fold end to end from regressing (I-PERF-10, I-PERF-11).

// cliBins are the programs the command-line workloads run, in dir (which the caller removes).
type cliBins struct {
	cli, hello, decode, dir string
}

// cliBinaries builds loom-conform from the module at root, the way `make build` does (pure Go; with
// tags, when a test asks for a mutant), and with the same toolchain a hello-world program and the
// baseline decoder (internal/jsonbase/jsondecode), into a fresh directory.
func cliBinaries(root, tags string) (b cliBins, err error) {
	if root == "" {
		root = "."
	}
	dir, err := os.MkdirTemp("", "loom-conform-cli-")
	if err != nil {
		return cliBins{}, err
	}
	b = cliBins{cli: filepath.Join(dir, "loom-conform"), hello: filepath.Join(dir, "hello"), decode: filepath.Join(dir, "jsondecode"), dir: dir}
	src := filepath.Join(dir, "hellosrc")
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n",
	}
	if err = os.Mkdir(src, 0o755); err == nil {
		for name, text := range files {
			if err = os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
				break
			}
		}
	}
	for _, p := range []struct{ dir, out, pkg string }{{root, b.cli, "./cmd/loom-conform"}, {src, b.hello, "."}, {root, b.decode, "./internal/jsonbase/jsondecode"}} {
		if err != nil {
			break
		}
		args := []string{"build", "-o", p.out}
		if p.pkg == "./cmd/loom-conform" && tags != "" {
			args = append(args, "-tags", tags)
		}
		cmd := exec.Command("go", append(args, p.pkg)...)
		cmd.Dir = p.dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, berr := cmd.CombinedOutput(); berr != nil {
			err = fmt.Errorf("go build %s: %v: %s", p.pkg, berr, bytes.TrimSpace(out))
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return cliBins{}, err
	}
	return b, nil
}

// runQuiet runs a program with its output discarded.
func runQuiet(prog string, args ...string) func() error {
	return func() error {
		cmd := exec.Command(prog, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %v: %v: %s", prog, args, err, bytes.TrimSpace(out))
		}
		return nil
	}
}

// cliStart: A starts a hello-world Go binary built by the same toolchain, B `loom-conform version`:
// what every command pays before it does its own work, against the floor of any Go program.
func cliStart(o WorkloadOptions) (Pair, error) {
	b, err := cliBinaries(o.Root, o.BuildTags)
	if err != nil {
		return Pair{}, err
	}
	return Pair{A: runQuiet(b.hello), B: runQuiet(b.cli, "version"), Close: func() error { return os.RemoveAll(b.dir) }}, nil
}

// cliFold returns the workload of one generated log of 100 000 envelopes (loggen: "pairs" or
// "mix"), end to end on both sides, each a child process of the same toolchain reading the same
// file: A decodes it with encoding/json (jsonbase: each line into an spi.Envelope, payloads raw:
// the bare decode), B runs `loom-conform fold LOG`. Both pay a start, the reading of the file and
// their fresh memory, which on some machines cost several times what they cost on others: with
// the decode in this process, those costs fell on one side only and the verdict moved with the
// machine.
func cliFold(kind string) Workload {
	return func(o WorkloadOptions) (Pair, error) {
		log := loggen.Pairs(100_000)
		if kind == "mix" {
			log = loggen.Mix(100_000)
		}
		b, err := cliBinaries(o.Root, o.BuildTags)
		if err != nil {
			return Pair{}, err
		}
		file := filepath.Join(b.dir, kind+".ndjson")
		if err := os.WriteFile(file, log, 0o600); err != nil {
			os.RemoveAll(b.dir)
			return Pair{}, err
		}
		return Pair{A: runDiscarding(b.decode, file), B: runDiscarding(b.cli, "fold", file),
			Close: func() error { return os.RemoveAll(b.dir) }}, nil
	}
}

// runDiscarding runs a program with its standard output on the null device (no pipe to drain).
func runDiscarding(prog string, args ...string) func() error {
	return func() error {
		cmd := exec.Command(prog, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %v: %v: %s", filepath.Base(prog), args, err, bytes.TrimSpace(stderr.Bytes()))
		}
		return nil
	}
}
