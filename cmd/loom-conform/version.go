package main

import (
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/spf13/cobra"
)

// version is set only by the linker, in a release build (scripts/release.sh):
//
//	go build -ldflags "-X main.version=0.1.0" ./cmd/loom-conform
var version string

// nextRelease is the release this source tree is heading for, manifest.HarnessVersion (one
// place: the reference kernel states it in its handshake too). A build that is not a release says
// so: its version is nextRelease-devel (a semver pre-release, which sorts before the release),
// with the commit it was built from when the Go toolchain recorded one. Right after a release is
// tagged, it moves to the next one (docs/releasing.md).
const nextRelease = manifest.HarnessVersion

// toolVersion is this harness's own version (not a kernel contract version), resolved once at
// start from the linker stamp or the build information, and never changed.
var toolVersion = harnessVersion(version, buildInfo())

func buildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

var (
	// tagged is a module version a tag names (v1.2.3, v1.2.3-rc.1); pseudo is the tail of one Go
	// derives from a commit (v0.0.0-20260101120000-abcdef123456).
	tagged = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)
	pseudo = regexp.MustCompile(`[0-9]{14}-[0-9a-f]{12}$`)
)

// harnessVersion is the version a build reports: the linker stamp of a release build; else the
// tag the module was built at (`go install …@v0.1.0`, or `go build` in a clean checkout of the
// tag); else nextRelease-devel, plus the commit (and ".dirty" for uncommitted changes) the
// toolchain recorded. The leading "v" of a tag is dropped: 0.1.0, as every report writes it.
func harnessVersion(stamped string, bi *debug.BuildInfo) string {
	if stamped != "" {
		return strings.TrimPrefix(stamped, "v")
	}
	if bi != nil && tagged.MatchString(bi.Main.Version) && !pseudo.MatchString(bi.Main.Version) {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	v := nextRelease + "-devel"
	if bi == nil {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		v += "+" + rev[:min(12, len(rev))]
		if modified == "true" {
			v += ".dirty"
		}
	}
	return v
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the harness version and the kernel contract versions it encodes",
		Long: `Print the harness version and the kernel contract versions it encodes. A release build
prints its release (0.1.0); any other build prints the release its source is heading for with
-devel, and the commit it was built from when the toolchain recorded one
(0.1.0-devel+3f2a1b0c9d8e, .dirty for uncommitted changes).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return err
		},
	}
}

// versionLine is what `version` and `--version` print.
func versionLine() string {
	return fmt.Sprintf("loom-conform %s (kernel ABI %s, event schema %s, wire ABI %s)",
		toolVersion, manifest.KernelAbiVersion, manifest.EventSchemaVersion, manifest.WireAbiVersion)
}
