package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/loom-kernel/loom-conform/deploysim/realfleet"
	"github.com/spf13/cobra"
)

// realFlags are deploysim's --real mode flags.
type realFlags struct {
	on       bool
	dsn      string
	noFaults bool
	orders   int
}

func (r *realFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&r.on, "real", false, "run worker processes (loom-conform worker) on PostgreSQL, SIGKILL and SIGSTOP them at seeded moments, and check the invariants (needs --dsn)")
	cmd.Flags().StringVar(&r.dsn, "dsn", "", "PostgreSQL DSN for --real (a fresh schema is created and dropped)")
	cmd.Flags().BoolVar(&r.noFaults, "no-faults", false, "with --real: no kills or pauses (throughput figures)")
	cmd.Flags().IntVar(&r.orders, "executions", 16, "with --real: executions to run (half orders, half batches)")
}

func runReal(cmd *cobra.Command, r realFlags, workers int, seed int64, asJSON bool) error {
	if r.dsn == "" {
		return badInput("deploysim --real: --dsn is required")
	}
	if r.orders < 2 {
		return badInput("deploysim --real: --executions %d: want at least 2", r.orders)
	}
	bin, err := os.Executable()
	if err != nil {
		return badInput("deploysim --real: %v", err)
	}
	res, err := realfleet.Run(cmd.Context(), realfleet.Config{DSN: r.dsn, Binary: bin, Workers: workers, Seed: seed,
		Orders: r.orders / 2, Batches: r.orders - r.orders/2, NoFaults: r.noFaults})
	if err != nil {
		return badInput("deploysim --real: %v", err)
	}
	if asJSON {
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintln(cmd.OutOrStdout(), string(b))
	} else {
		for _, v := range res.Violations {
			fmt.Fprintln(cmd.ErrOrStderr(), v.Error())
		}
		fmt.Fprintf(cmd.OutOrStdout(), "real fleet: %d workers, seed %d: %d executions, %d events in %s (%.1f executions/s), %d SIGKILL, %d SIGSTOP, %d violations\n",
			res.Workers, seed, res.Executions, res.Events, res.Elapsed.Round(1e6), res.ExecutionsPerS, res.Kills, res.Stops, len(res.Violations))
	}
	if len(res.Violations) > 0 {
		return verdict("deploysim --real: %d invariant violation(s)", len(res.Violations))
	}
	return nil
}
