package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/loom-kernel/loom-conform/internal/cliverb"
	dispatchpg "github.com/loom-kernel/loom-conform/reference/dispatch/postgres"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/verify"
	"github.com/spf13/cobra"
)

func newVerifyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify RULE",
		Short: "Verify a deployment before it runs (placement-compat, suspension-safety)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cliverb.BadInput("verify: name a rule: placement") },
	}
	cmd.AddCommand(newVerifyPlacementCmd())
	return cmd
}

func newVerifyPlacementCmd() *cobra.Command {
	var file, dsn, schema string
	var targets []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "placement --deployment FILE [--targets A,B | --dsn DSN [--schema S]] [--json]",
		Short: "Refuse a deployment that pins an unregistered computeTarget; report timed suspends without a TimerStore",
		Long: `Verify a deployment file (docs/deployment.md) before any execution starts.

placement-compat (spec §6, MUST): every flow's computeTarget must be a target the dispatcher
registers. The registered targets come from --targets, else from the PostgreSQL dispatcher at
--dsn (schema --schema), else from the file's own "targets".

suspension-safety (spec §5, SHOULD): a flow that makes timed suspends on a deployment whose
"timerStore" is false is reported: nothing would ever wake it. A warning, not a refusal.

Exit 0 when no MUST rule is violated (warnings on stderr), 1 when one is (each finding names the
flow and the target), 2 when the file or a flag is malformed.`,
		Example: `  loom-conform verify placement --deployment deploy.json --targets cpu,gpu
  loom-conform verify placement --deployment deploy.json --dsn "$LOOM_CONFORM_POSTGRES_DSN" --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return cliverb.BadInput("verify placement: --deployment is required")
			}
			data, err := os.ReadFile(file)
			if err != nil {
				return cliverb.BadInput("verify placement: %v", err)
			}
			dep, err := verify.ParseDeployment(file, data)
			if err != nil {
				return cliverb.BadInput("verify placement: %v", err)
			}
			var registered []string
			switch {
			case len(targets) > 0:
				registered = targets
			case dsn != "":
				ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
				defer cancel()
				db, err := storespg.Open(ctx, dsn, schema)
				if err != nil {
					return cliverb.BadInput("verify placement: --dsn: %v", err)
				}
				defer db.Close()
				d, err := dispatchpg.New(ctx, db.Pool(), nil)
				if err != nil {
					return cliverb.BadInput("verify placement: --dsn: %v", err)
				}
				if registered, err = d.Targets(ctx); err != nil {
					return cliverb.BadInput("verify placement: --dsn: %v", err)
				}
				if registered == nil {
					registered = []string{}
				}
			}
			rep := verify.Deployment(dep, registered)
			if asJSON {
				b, _ := json.MarshalIndent(rep, "", "  ")
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
			} else {
				for _, f := range rep.Findings {
					fmt.Fprintln(cmd.ErrOrStderr(), f)
				}
			}
			if !rep.OK() {
				return cliverb.Verdict("verify placement: %s refused", file)
			}
			if !asJSON {
				fmt.Fprintf(cmd.OutOrStdout(), "placement-compat: ok (%d flows, targets %v)\n", len(dep.Flows), rep.Targets)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "deployment", "", "deployment file (JSON, docs/deployment.md)")
	cmd.Flags().StringSliceVar(&targets, "targets", nil, "registered targets, comma-separated")
	cmd.Flags().StringVar(&dsn, "dsn", "", "PostgreSQL DSN of the dispatcher whose targets to check against")
	cmd.Flags().StringVar(&schema, "schema", "loom", "PostgreSQL schema of the dispatcher")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
