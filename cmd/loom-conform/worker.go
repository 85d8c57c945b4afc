package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/deploysim/realfleet"
	"github.com/spf13/cobra"
)

func newWorkerCmd() *cobra.Command {
	var cfg realfleet.WorkerConfig
	cmd := &cobra.Command{
		Use:   "worker --dsn DSN [--schema S] [--target NAME] [--name W] [--profile V] [--code N] [--ttl D]",
		Short: "Run a reference worker: claim executions from the PostgreSQL dispatcher and drive them",
		Long: `Run one reference worker process against a PostgreSQL database shared by the whole fleet
(spec §6): it claims packages for --target from the PostgreSQL ExecutionDispatcher (SKIP LOCKED
queue, leases of --ttl kept alive by heartbeats), rebuilds each execution from the PostgreSQL
EventStore, drives it with a reference kernel at event-schema --profile running flow code
--code (the deploy simulation's flow scripts), fences its writes, checks its lease before every
effect, and acks only a run that ended cleanly. Start as many as you like, on as many hosts as
reach the database; kill any of them at any time.

Stops on SIGINT or SIGTERM. Exit 2 on bad flags or an unreachable database.`,
		Example: `  loom-conform worker --dsn "$LOOM_CONFORM_POSTGRES_DSN" --schema loom --target default --name host-a`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.DSN == "" {
				return badInput("worker: --dsn is required")
			}
			if cfg.TTL < 10*time.Millisecond || cfg.TTL > 10*time.Minute {
				return badInput("worker: --ttl %s: want 10ms..10m", cfg.TTL)
			}
			if cfg.Code < 1 || cfg.Code > 2 {
				return badInput("worker: --code %d: the flows have versions 1 and 2", cfg.Code)
			}
			if cfg.Name == "" {
				host, _ := os.Hostname()
				cfg.Name = fmt.Sprintf("%s-%d", host, os.Getpid())
			}
			cfg.Log = cmd.ErrOrStderr()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := realfleet.RunWorker(ctx, cfg); err != nil && ctx.Err() == nil {
				return badInput("%v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&cfg.DSN, "dsn", "", "PostgreSQL DSN of the fleet's database (required)")
	cmd.Flags().StringVar(&cfg.Schema, "schema", "loom", "PostgreSQL schema holding the stores and the dispatcher")
	cmd.Flags().StringVar(&cfg.Target, "target", "default", "the compute target this worker serves (registered with the dispatcher)")
	cmd.Flags().StringVar(&cfg.Name, "name", "", "worker name in leases (default host-pid)")
	cmd.Flags().StringVar(&cfg.Profile, "profile", "", "event-schema profile to fold with (default current)")
	cmd.Flags().IntVar(&cfg.Code, "code", 1, "flow-code version (1 or 2)")
	cmd.Flags().DurationVar(&cfg.TTL, "ttl", time.Second, "lease TTL; heartbeats every third of it")
	return cmd
}
