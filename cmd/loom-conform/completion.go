package main

import (
	"strings"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/spf13/cobra"
)

// fixedCompletion completes a flag from a fixed list of values (cobra's `completion` verb turns
// these into bash, zsh, fish and PowerShell completion).
func fixedCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// spiCompletion completes --spi with SEAM= for every certified kind.
func spiCompletion(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, k := range certify.Kinds() {
		if strings.HasPrefix(k, strings.ToLower(toComplete)) {
			out = append(out, k+"=")
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// profileNames lists every fold profile as its schema version, for --profile completion.
func profileNames() []string {
	var out []string
	for _, p := range fold.Profiles() {
		out = append(out, p.String())
	}
	return out
}
