package main

import (
	"github.com/spf13/cobra"
)

// realFlags are deploysim's --real mode flags.
type realFlags struct {
	on  bool
	dsn string
}

func (r *realFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&r.on, "real", false, "run worker processes on PostgreSQL instead of a simulation (needs --dsn)")
	cmd.Flags().StringVar(&r.dsn, "dsn", "", "PostgreSQL DSN for --real")
}

func runReal(cmd *cobra.Command, r realFlags, workers int, seed int64) error {
	return badInput("deploysim --real: not available in this build")
}
