package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/spf13/cobra"
)

func newManifestCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "manifest",
		Aliases: []string{"kernel-manifest"},
		Short:   "Print the kernel manifest: contract versions, syscalls, event types and SPI tables",
		Long: `Print the kernel manifest (spec §9): the kernel ABI, event schema and wire ABI versions,
the 13 syscalls with the ABI version each arrived in, their unary/channel kind and feature flag,
every event type with the schema version it arrived in, the wire methods (one per syscall) and
the carrier methods of the wire kernel ABI (ADR 0026), and every SPI with its version and its
required and optional methods. --json prints the same content, machine-readable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m := manifest.KernelManifest()
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(m)
			}
			return renderManifest(cmd.OutOrStdout(), m)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func renderManifest(w io.Writer, m manifest.Manifest) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "kernel ABI\t%s\nevent schema\t%s\nwire ABI\t%s\n\n", m.KernelAbiVersion, m.EventSchemaVersion, m.WireAbiVersion)
	fmt.Fprintln(tw, "SYSCALL\tSINCE\tKIND\tFEATURE")
	for _, s := range m.Syscalls {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Since, s.Kind, dash(s.Feature))
	}
	fmt.Fprintln(tw, "\nEVENT TYPE\tSINCE\tLEVEL")
	for _, e := range m.EventTypes {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.Since, e.Level)
	}
	fmt.Fprintln(tw, "\nWIRE METHOD\tSYSCALL\tKIND\tFEATURE")
	for _, wm := range m.WireMethods {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", wm.Method, wm.Syscall, wm.Kind, dash(wm.Feature))
	}
	fmt.Fprintln(tw, "\nCARRIER METHOD")
	for _, c := range m.CarrierMethods {
		fmt.Fprintln(tw, c)
	}
	fmt.Fprintln(tw, "\nSPI\tVERSION\tTIER\tREQUIRED\tOPTIONAL (since)")
	for _, s := range m.Spis {
		var req, opt string
		for _, me := range s.Methods {
			if me.Optional {
				opt += fmt.Sprintf("%s (%s) ", me.Name, me.Since)
			} else {
				req += me.Name + " "
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Version, s.Tier, req, dash(opt))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
