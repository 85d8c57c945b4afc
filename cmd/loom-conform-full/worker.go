package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/deploysim/realfleet"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/spf13/cobra"
)

func newWorkerCmd() *cobra.Command {
	var cfg realfleet.WorkerConfig
	var dsnFile string
	cmd := &cobra.Command{
		Use:   "worker [--dsn DSN | --dsn-file FILE] [--schema S] [--target NAME] [--name W] [--profile V] [--code N] [--ttl D]",
		Short: "Run a reference worker: claim executions from the PostgreSQL dispatcher and drive them",
		Long: `Run one reference worker process against a PostgreSQL database shared by the whole fleet
(spec §6): it claims packages for --target from the PostgreSQL ExecutionDispatcher (SKIP LOCKED
queue, leases of --ttl kept alive by heartbeats), rebuilds each execution from the PostgreSQL
EventStore, drives it with a reference kernel at event-schema --profile running flow code
--code (the deploy simulation's flow scripts), fences its writes, checks its lease before every
effect, and acks only a run that ended cleanly. Start as many as you like, on as many hosts as
reach the database; kill any of them at any time.

The database's DSN comes from --dsn-file FILE, from LOOM_CONFORM_POSTGRES_DSN, or from --dsn:
the first two keep the password out of the process list (every user of the host can read a
command line), and no output of the worker shows it.

Stops on SIGINT or SIGTERM. Exit 2 on bad flags or an unreachable database.`,
		Example: `  LOOM_CONFORM_POSTGRES_DSN=postgres://… loom-conform worker --schema loom --target default --name host-a
  loom-conform worker --dsn-file /run/secrets/loom-dsn --target default`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dsnFile != "" {
				if cfg.DSN != "" {
					return cliverb.BadInput("worker: give the DSN once: --dsn or --dsn-file")
				}
				b, err := os.ReadFile(dsnFile)
				if err != nil {
					return cliverb.BadInput("worker: --dsn-file: %v", err)
				}
				cfg.DSN = strings.TrimSpace(string(b))
				secretsOf(cmd).AddDSN(cfg.DSN)
			}
			if cfg.DSN == "" {
				cfg.DSN = os.Getenv(storespg.DSNEnv)
			}
			if cfg.DSN == "" {
				return cliverb.BadInput("worker: a DSN is required: --dsn-file FILE, $%s or --dsn", storespg.DSNEnv)
			}
			if cfg.TTL < 10*time.Millisecond || cfg.TTL > 10*time.Minute {
				return cliverb.BadInput("worker: --ttl %s: want 10ms..10m", cfg.TTL)
			}
			if cfg.Code < 1 || cfg.Code > 2 {
				return cliverb.BadInput("worker: --code %d: the flows have versions 1 and 2", cfg.Code)
			}
			if cfg.Name == "" {
				host, _ := os.Hostname()
				cfg.Name = fmt.Sprintf("%s-%d", host, os.Getpid())
			}
			cfg.Log = cmd.ErrOrStderr()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := realfleet.RunWorker(ctx, cfg); err != nil && ctx.Err() == nil {
				return cliverb.BadInput("%v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&cfg.DSN, "dsn", "", "PostgreSQL DSN of the fleet's database (visible in the process list: prefer --dsn-file or $"+storespg.DSNEnv+")")
	cmd.Flags().StringVar(&dsnFile, "dsn-file", "", "file holding the PostgreSQL DSN of the fleet's database")
	cmd.Flags().StringVar(&cfg.Schema, "schema", "loom", "PostgreSQL schema holding the stores and the dispatcher")
	cmd.Flags().StringVar(&cfg.Target, "target", "default", "the compute target this worker serves (registered with the dispatcher)")
	cmd.Flags().StringVar(&cfg.Name, "name", "", "worker name in leases (default host-pid)")
	cmd.Flags().StringVar(&cfg.Profile, "profile", "", "event-schema profile to fold with (default current)")
	cmd.Flags().IntVar(&cfg.Code, "code", 1, "flow-code version (1 or 2)")
	cmd.Flags().DurationVar(&cfg.TTL, "ttl", time.Second, "lease TTL; heartbeats every third of it")
	cmd.Flags().StringVar(&cfg.Broken, "broken", "", "play a broken worker (deploysim --real --broken)")
	_ = cmd.Flags().MarkHidden("broken")
	return cmd
}
