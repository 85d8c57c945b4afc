// Command loom-conform encodes the Loom kernel specification as executable checks. See README.md
// and `loom-conform --help`.
//
// This binary serves the verbs that need only the reference fold — version (and --version), fold
// and digest — and starts as fast as any small Go program. Every other verb (certify, vectors,
// goldens, serve-kernel, help, completion, …) it hands to loom-conform-full, the whole command
// line, installed beside it: the process is replaced (exec), so arguments, streams, signals and
// the exit code are the full binary's own. Like git and its git-* programs, the split keeps the
// kits, the stores and their libraries (and their initialisation) out of the commands that do
// not use them (I-PERF-10, docs/performance.md).
package main

import (
	"os"
	"slices"

	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/manifest"
)

// version is set only by the linker, in a release build (scripts/release.sh):
//
//	go build -ldflags "-X main.version=0.1.0" ./cmd/loom-conform ./cmd/loom-conform-full
var version string

// toolVersion is this harness's own version, resolved once at start (manifest.BuildVersion).
var toolVersion = manifest.BuildVersion(version)

func main() {
	args := os.Args[1:]
	if !servedHere(args) {
		os.Exit(delegate(args, os.Stderr))
	}
	root := cliverb.NewRoot(toolVersion)
	root.AddCommand(cliverb.NewVersionCmd(toolVersion), cliverb.NewFoldCmd(), cliverb.NewDigestCmd())
	root.SetArgs(args)
	os.Exit(cliverb.ExitCode(root.Execute(), os.Stderr))
}

// servedHere reports whether this binary runs args itself: a verb it serves, or the version flag
// alone. Everything else, completion requests included, is loom-conform-full's.
func servedHere(args []string) bool {
	if len(args) == 0 {
		return false
	}
	return slices.Contains([]string{"version", "fold", "digest"}, args[0]) ||
		len(args) == 1 && slices.Contains([]string{"--version", "-v"}, args[0])
}
