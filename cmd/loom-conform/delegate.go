package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/cliverb"
)

// FullEnv, when set, names the loom-conform-full binary to run, before the one beside this binary
// and the one on PATH (a test, or an install that keeps the two apart).
const FullEnv = "LOOM_CONFORM_FULL"

// fullName is the name loom-conform-full has beside a binary named self: self with its leading
// "loom-conform" made "loom-conform-full", so a release's loom-conform_1.2.0_linux_amd64 finds
// loom-conform-full_1.2.0_linux_amd64; any other name finds loom-conform-full.
func fullName(self string) string {
	if rest, ok := strings.CutPrefix(self, "loom-conform"); ok && !strings.HasPrefix(rest, "-full") {
		return "loom-conform-full" + rest
	}
	name := "loom-conform-full"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return name
}

// findFull finds loom-conform-full: $LOOM_CONFORM_FULL, else beside this binary (symbolic links
// resolved), else on PATH. The error says where it looked and how to install it.
func findFull() (string, error) {
	if p := os.Getenv(FullEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("$%s: %v", FullEnv, err)
		}
		return p, nil
	}
	var looked []string
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		p := filepath.Join(filepath.Dir(self), fullName(filepath.Base(self)))
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
		looked = append(looked, p)
	}
	if p, err := exec.LookPath("loom-conform-full"); err == nil {
		return p, nil
	}
	looked = append(looked, "loom-conform-full on PATH")
	return "", fmt.Errorf("this verb is served by loom-conform-full, the whole command line, and it is not installed: looked for %s; "+
		"install both binaries (go install github.com/loom-kernel/loom-conform/cmd/...@latest, make build, or a release's two files side by side), "+
		"set $%s to its path, or from a clone run go run ./cmd/loom-conform-full", strings.Join(looked, " and "), FullEnv)
}

// delegate runs loom-conform-full with args in this process's place and returns an exit code
// only when it could not (2, the reason on stderr).
func delegate(args []string, stderr io.Writer) int {
	full, err := findFull()
	if err == nil {
		err = replace(full, args)
	}
	return cliverb.ExitCode(cliverb.BadInput("%v", err), stderr)
}
