package cliverb

import (
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/spf13/cobra"
)

// VersionLine is what `version` and `--version` print for the harness version v (the linker
// stamp or the build information, manifest.BuildVersion).
func VersionLine(v string) string {
	return fmt.Sprintf("loom-conform %s (kernel ABI %s, event schema %s, wire ABI %s)",
		v, manifest.KernelAbiVersion, manifest.EventSchemaVersion, manifest.WireAbiVersion)
}

// NewVersionCmd is the version verb of a binary whose harness version is v.
func NewVersionCmd(v string) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the harness version and the kernel contract versions it encodes",
		Long: `Print the harness version and the kernel contract versions it encodes. A release build
prints its release (0.1.0); any other build prints the release its source is heading for with
-devel, and the commit it was built from when the toolchain recorded one
(0.1.0-devel+3f2a1b0c9d8e, .dirty for uncommitted changes).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), VersionLine(v))
			return err
		},
	}
}

// FixedCompletion completes a flag from a fixed list of values (cobra's `completion` verb turns
// these into bash, zsh, fish and PowerShell completion).
func FixedCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}
