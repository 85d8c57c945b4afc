package main

import (
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/spf13/cobra"
)

func newCompatCmd() *cobra.Command {
	var d manifest.Declared
	var spis []string
	cmd := &cobra.Command{
		Use:   "compat --abi V [--event-schema V] [--wire V] [--spi NAME=V]...",
		Short: "Check a deployment's declared versions against the kernel manifest",
		Long: `Check declared contract versions against this manifest (spec §9): each component is
compatible iff it shares the manifest's major version.

Exit 0 when compatible, 1 when incompatible (one reason per mismatch on stderr), 2 when a
version or flag is malformed. SPI names: EventStore, SnapshotStore, ArchiveStore,
BranchRegistry, ExecutionDispatcher, ContentStore, DurableStateStore, ReadModelStore.`,
		Example: `  loom-conform compat --abi 1.9.0
  loom-conform compat --abi 1.3.0 --event-schema 1.26.0 --spi EventStore=2.6.0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if d.KernelAbi == "" {
				return cliverb.BadInput("compat: --abi is required")
			}
			for _, kv := range spis {
				name, v, ok := strings.Cut(kv, "=")
				if !ok || name == "" || v == "" {
					return cliverb.BadInput("compat: --spi %q: want NAME=VERSION", kv)
				}
				if d.Spi == nil {
					d.Spi = map[string]string{}
				}
				d.Spi[name] = v
			}
			r, err := manifest.CheckCompatibility(d)
			if err != nil {
				return cliverb.BadInput("compat: %v", err)
			}
			if !r.Compatible {
				for _, reason := range r.Reasons {
					fmt.Fprintln(cmd.ErrOrStderr(), reason)
				}
				return cliverb.Verdict("incompatible: %d mismatch(es)", len(r.Reasons))
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), "compatible")
			return err
		},
	}
	cmd.Flags().StringVar(&d.KernelAbi, "abi", "", "declared kernel ABI version (required)")
	cmd.Flags().StringVar(&d.EventSchema, "event-schema", "", "declared event schema version")
	cmd.Flags().StringVar(&d.Wire, "wire", "", "declared wire ABI version")
	cmd.Flags().StringArrayVar(&spis, "spi", nil, "declared SPI version, NAME=VERSION (repeatable)")
	return cmd
}
