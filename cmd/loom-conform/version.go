package main

import (
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/spf13/cobra"
)

// version is set only by the linker, in a release build (scripts/release.sh):
//
//	go build -ldflags "-X main.version=0.1.0" ./cmd/loom-conform
var version string

// toolVersion is this harness's own version (not a kernel contract version), resolved once at
// start from the linker stamp or the build information (manifest.BuildVersion), and never changed.
var toolVersion = manifest.BuildVersion(version)

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
