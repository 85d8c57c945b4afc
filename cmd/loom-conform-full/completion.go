package main

import (
	"strings"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/spf13/cobra"
)

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
