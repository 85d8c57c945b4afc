package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/loom-kernel/loom-conform/deploysim/realfleet"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
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
	cmd.Flags().StringVar(&r.dsn, "dsn", "", "PostgreSQL DSN for --real (default $"+storespg.DSNEnv+"; a fresh schema is created and dropped; the workers get it in their environment, never on their command line)")
	cmd.Flags().BoolVar(&r.noFaults, "no-faults", false, "with --real: no kills or pauses (throughput figures)")
	cmd.Flags().IntVar(&r.orders, "executions", 16, "with --real: executions to run (half orders, half batches)")
}

func runReal(cmd *cobra.Command, r realFlags, workers int, seed int64, asJSON bool) error {
	if r.dsn == "" {
		r.dsn = os.Getenv(storespg.DSNEnv)
	}
	if r.dsn == "" {
		return badInput("deploysim --real: --dsn (or $%s) is required", storespg.DSNEnv)
	}
	if r.orders < 2 {
		return badInput("deploysim --real: --executions %d: want at least 2", r.orders)
	}
	bin, err := os.Executable()
	if err != nil {
		return badInput("deploysim --real: %v", err)
	}
	// a worker answers no one, so its start-up is the binary's, timed once in this run (I-PERF-12)
	t0 := time.Now()
	if out, err := exec.CommandContext(cmd.Context(), bin, "version").CombinedOutput(); err != nil {
		return badInput("deploysim --real: %s version: %v: %s", bin, err, out)
	}
	startOne := time.Since(t0)
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
			res.Workers, seed, res.Executions, res.Events, res.Elapsed.Round(1e6), res.ExecutionsPerS, res.Crashes, res.Pauses, len(res.Violations))
		if res.Exits > 0 {
			fmt.Fprintf(cmd.OutOrStdout(), "  %d worker(s) exited on their own and were restarted\n", res.Exits)
		}
		for _, iv := range res.Invariants {
			note := ""
			if iv.Note != "" {
				note = ": " + iv.Note
			}
			fmt.Fprintf(cmd.OutOrStdout(), "  ran %-20s on %d%s\n", iv.ID, iv.Judged, note)
		}
		for _, nj := range res.NotJudged {
			fmt.Fprintf(cmd.OutOrStdout(), "  not judged %s %s: %s\n", nj.Invariant, nj.Execution, nj.Why)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "  %s\n", overheadLine("worker(s)", res.Started, time.Duration(res.Started)*startOne, res.Elapsed))
		fmt.Fprintf(cmd.OutOrStdout(), "  reproduce: %s\n", res.Repro)
	}
	if len(res.Violations) > 0 {
		return verdict("deploysim --real: %d invariant violation(s)", len(res.Violations))
	}
	return nil
}
