package main

import (
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the harness version and the kernel contract versions it encodes",
		Args:  cobra.NoArgs,
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
