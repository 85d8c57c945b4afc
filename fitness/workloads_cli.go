package fitness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/loom-kernel/loom-conform/internal/loggen"
	"github.com/loom-kernel/loom-conform/spi"
)

// The command-line workloads run loom-conform as a user does, a child process each time, and
// charge each side the CPU time of the children it ran (timeBatch): they keep the binary's start
// and its fold end to end from regressing (I-PERF-10, I-PERF-11).

// cliBinaries builds loom-conform from the module at root, the way `make build` does (pure Go; with
// tags, when a test asks for a mutant), and a hello-world program with the same toolchain, into a
// fresh directory. It returns their paths and the directory, which the caller removes.
func cliBinaries(root, tags string) (cli, hello, dir string, err error) {
	if root == "" {
		root = "."
	}
	if dir, err = os.MkdirTemp("", "loom-conform-cli-"); err != nil {
		return "", "", "", err
	}
	cli, hello = filepath.Join(dir, "loom-conform"), filepath.Join(dir, "hello")
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
	for _, b := range []struct{ dir, out, pkg string }{{root, cli, "./cmd/loom-conform"}, {src, hello, "."}} {
		if err != nil {
			break
		}
		args := []string{"build", "-o", b.out}
		if b.pkg != "." && tags != "" {
			args = append(args, "-tags", tags)
		}
		cmd := exec.Command("go", append(args, b.pkg)...)
		cmd.Dir = b.dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, berr := cmd.CombinedOutput(); berr != nil {
			err = fmt.Errorf("go build %s: %v: %s", b.pkg, berr, bytes.TrimSpace(out))
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", "", "", err
	}
	return cli, hello, dir, nil
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
	cli, hello, dir, err := cliBinaries(o.Root, o.BuildTags)
	if err != nil {
		return Pair{}, err
	}
	return Pair{A: runQuiet(hello), B: runQuiet(cli, "version"), Close: func() error { return os.RemoveAll(dir) }}, nil
}

// cliFold returns the workload of one generated log of 100 000 envelopes (loggen: "pairs" or
// "mix"): A decodes it with encoding/json in this process (each line into an spi.Envelope,
// payloads raw: the bare decode), B runs `loom-conform fold LOG` on the same bytes in a file.
func cliFold(kind string) Workload {
	return func(o WorkloadOptions) (Pair, error) {
		log := loggen.Pairs(100_000)
		if kind == "mix" {
			log = loggen.Mix(100_000)
		}
		cli, _, dir, err := cliBinaries(o.Root, o.BuildTags)
		if err != nil {
			return Pair{}, err
		}
		file := filepath.Join(dir, kind+".ndjson")
		if err := os.WriteFile(file, log, 0o600); err != nil {
			os.RemoveAll(dir)
			return Pair{}, err
		}
		fold := func() error {
			cmd := exec.Command(cli, "fold", file)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr // stdout: discarded by the child's writes to the null device
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("loom-conform fold %s: %v: %s", kind, err, bytes.TrimSpace(stderr.Bytes()))
			}
			return nil
		}
		return Pair{A: func() error { return JSONDecode(log) }, B: fold, WithGC: true,
			Close: func() error { return os.RemoveAll(dir) }}, nil
	}
}

// JSONDecode is the baseline the fold's speed is stated against: encoding/json decoding each
// NDJSON line of log into an spi.Envelope, payload and metadata kept raw.
func JSONDecode(log []byte) error {
	for len(log) > 0 {
		i := bytes.IndexByte(log, '\n')
		if i < 0 {
			i = len(log)
		}
		if line := bytes.TrimSpace(log[:i]); len(line) > 0 {
			var e spi.Envelope
			if err := json.Unmarshal(line, &e); err != nil {
				return err
			}
		}
		log = log[min(i+1, len(log)):]
	}
	return nil
}
