package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/spf13/cobra"
)

func newReplayCmd() *cobra.Command {
	var script, driver string
	cmd := &cobra.Command{
		Use:   "replay --script flow.json [--driver driver.json] LOG",
		Short: "Replay a flow script over a recorded log: did the kernel change a recorded execution?",
		Long: `replay seeds a fresh store with LOG (NDJSON or a JSON array of envelopes) and re-runs the flow
script over it on the current reference kernel, as a fixture: the replay must append nothing,
end in the recorded status and output, fold byte-identically and invoke no effect (spec §3, §10).

With --driver the driver script also supplies the execution id, the profile the log was written
at and the target flows of resumeAs, and the flow is re-run from scratch under the driver: the
fresh log must equal LOG (envelope ids and timestamps included, since the driver's ids and clock
are deterministic).

Exit 0 when the replay is unchanged, 1 when it diverged (with the first divergence: envelope
index, event type, JSON Pointer, (-want +got)), 2 on bad input: a malformed script, driver or log
(unknown syscall, unbound name, wrong argument type, non-dense log, a log of another execution),
naming the file, statement or envelope index and field.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if script == "" {
				return cliverb.BadInput("replay: --script is required")
			}
			sb, err := os.ReadFile(script)
			if err != nil {
				return cliverb.BadInput("%v", err)
			}
			s, err := flowscript.Decode(script, sb)
			if err != nil {
				return cliverb.BadInput("%v", err)
			}
			d := &flowscript.Driver{Format: flowscript.DriverFormat, Execution: "", Clock: flowscript.DefaultClock}
			if driver != "" {
				db, err := os.ReadFile(driver)
				if err != nil {
					return cliverb.BadInput("%v", err)
				}
				if d, err = flowscript.DecodeDriver(driver, db); err != nil {
					return cliverb.BadInput("%v", err)
				}
			}
			lb, err := os.ReadFile(args[0])
			if err != nil {
				return cliverb.BadInput("%v", err)
			}
			log, err := goldens.ReadLog(args[0], lb)
			if err != nil {
				return cliverb.BadInput("%v", err)
			}
			if len(log) == 0 {
				return cliverb.BadInput("%s: empty log", args[0])
			}
			if err := goldens.CheckLog(args[0], log, nil); err != nil {
				return cliverb.BadInput("%v", err)
			}
			if d.Execution != "" && log[0].ExecutionID != d.Execution {
				return cliverb.BadInput("%s: envelope 0: field \"executionId\": %q, but %s drives execution %q (a log of another execution)", args[0], log[0].ExecutionID, driver, d.Execution)
			}
			if log[0].WorkflowID != s.ID {
				return cliverb.BadInput("%s: envelope 0: field \"workflowId\": %q, but %s is flow %q (a log of another flow)", args[0], log[0].WorkflowID, script, s.ID)
			}
			rep, err := goldens.ReplayAsFixture(cmd.Context(), s, d, log, nil)
			var fe *goldens.FixtureError
			if errors.As(err, &fe) {
				return cliverb.Verdict("replay diverged: %v", fe)
			}
			if err != nil {
				return err
			}
			if driver != "" {
				rec, err := goldens.Record(cmd.Context(), &goldens.Golden{Name: d.Execution, Script: s, Driver: d}, toolVersion, flowscript.RunOptions{})
				if err != nil {
					return err
				}
				if dv := goldens.DiffLogs(log, rec.Run.Log, goldens.DiffOptions{Strict: true}); dv != nil {
					return cliverb.Verdict("re-run under %s diverged: %v", driver, dv)
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "replay unchanged: %d envelopes, executions %v replayed, %d effects invoked\n", len(log), rep.Replayed, rep.Effects)
			return nil
		},
	}
	cmd.Flags().StringVar(&script, "script", "", "the flow script (flow.json)")
	cmd.Flags().StringVar(&driver, "driver", "", "the driver script (driver.json)")
	cmd.AddCommand(newReplayDiffCmd())
	return cmd
}

func newReplayDiffCmd() *cobra.Command {
	var strict, state bool
	cmd := &cobra.Command{
		Use:   "diff [--strict] [--state] A B",
		Short: "Print the first divergence between two logs (or two states)",
		Long: `diff compares two logs (NDJSON or JSON arrays of envelopes), or with --state two folded states,
and prints the first divergence: envelope index, event type, the JSON Pointer of the first
differing field and a (-want +got) diff, A being "want".

Envelope ids and timestamps legitimately differ between two runs (fresh ids, a wall clock): they
are ignored unless --strict (the one rule, docs/goldens.md). Exit 0 when the same, 1 when they
differ, 2 on bad input.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var bs [2][]byte
			for i, f := range args {
				b, err := os.ReadFile(f)
				if err != nil {
					return cliverb.BadInput("%v", err)
				}
				bs[i] = b
			}
			o := goldens.DiffOptions{Strict: strict}
			var dv *goldens.Divergence
			if state {
				var st [2][]byte
				for i, b := range bs {
					s, err := fold.ParseState(b)
					if err != nil {
						return cliverb.BadInput("%s: %v", args[i], err)
					}
					if st[i], err = fold.CanonicalState(s); err != nil {
						return cliverb.BadInput("%s: %v", args[i], err)
					}
				}
				dv = goldens.DiffRuns(nil, nil, st[0], st[1], o)
			} else {
				a, err := goldens.ReadLog(args[0], bs[0])
				if err != nil {
					return cliverb.BadInput("%v", err)
				}
				b, err := goldens.ReadLog(args[1], bs[1])
				if err != nil {
					return cliverb.BadInput("%v", err)
				}
				dv = goldens.DiffLogs(a, b, o)
			}
			if dv != nil {
				fmt.Fprintln(cmd.OutOrStdout(), dv.String())
				return cliverb.Verdict("%s and %s differ", args[0], args[1])
			}
			fmt.Fprintln(cmd.OutOrStdout(), "same")
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "compare envelope ids and timestamps too")
	cmd.Flags().BoolVar(&state, "state", false, "A and B are folded states, not logs")
	return cmd
}
