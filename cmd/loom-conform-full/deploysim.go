package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/junit"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/spf13/cobra"
)

func newDeploysimCmd() *cobra.Command {
	var scenario, junitFile, shardFlag string
	var seeds, workers int
	var seed int64
	var asJSON bool
	var real realFlags
	cmd := &cobra.Command{
		Use:   "deploysim [--scenario NAME] [--seeds N | --seed S] [--shard i/n] [--workers N] [--json] [--junit FILE]",
		Short: "Run seeded, deterministic fleet simulations and check their invariants",
		Long: `Simulate a fleet of reference kernels — each with its own event-schema profile and flow-code
version — taking executions from an ExecutionDispatcher over shared stores, while one seed draws
scheduling, virtual delays, crashes, zombie pauses and store faults (spec §6, §10). One
(scenario, seed, workers) reproduces a run exactly.

Scenarios: ` + strings.Join(deploysim.ScenarioNames(), ", ") + ` (all when --scenario is not given).

After every run the invariants are checked (docs/deploysim.md): acknowledged events neither lost
nor duplicated, dense sequences, at-most-once effects, completed effects never re-run, emits
counted once, snapshot equivalence at every k and profile, zombies fenced, no append after a lost
lease, one owner per execution, every execution ending visibly, and final states equal to a
single-worker run. Each violation prints the one-line command that reproduces it.

--shard i/n runs only the seeds whose decimal string falls in shard i of n (a stable partition;
every scenario of one seed runs in the same shard), for a CI matrix; a shard's verdict is its
part's only. --json prints {"kind": "deploysim", "shard", "scenarios", "first", "seeds",
"workers", "failed", "runs": [...]}; "report merge" joins the --json reports of all n shards into
the report, and the verdict, of one run.

--real runs the fleet as worker processes (loom-conform worker, default 4) on PostgreSQL at
--dsn, in a fresh schema: it SIGKILLs and restarts them and SIGSTOPs them past their lease at
seeded moments, answers their parks, and when every execution settled checks the invariants a
real fleet can observe (dense logs, no duplicate envelope, every execution completed, snapshot
equivalence, the single-worker result, at-most-once effects, no effect re-run once its
completion is logged) and prints executions/s. It runs one fleet (--seed, default 0), or one
per seed 1..N with --seeds N. It judges only what settled: a fleet that has not settled by
--deadline (default 90s) is one verdict, "did not settle in 90s; N unfinished, not judged",
and "ran … on N" counts only the executions judged.

Exit 0 when every run holds every invariant (and, with --real, settled), 1 on a violation or a
fleet that did not settle (not judged is not passed), 2 on bad flags.`,
		Example: `  loom-conform deploysim --seeds 100
  loom-conform deploysim --scenario zombie --seed 42 --workers 4
  loom-conform deploysim --real --dsn "$LOOM_CONFORM_POSTGRES_DSN" --workers 4
  loom-conform deploysim --real --executions 2000 --seeds 3 --deadline 5m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutputs([]outfile.Output{{Flag: "--junit", Path: junitFile}}); err != nil {
				return cliverb.BadInput("deploysim: %v", err)
			}
			if cmd.Flags().Changed("seed") && cmd.Flags().Changed("seeds") {
				return cliverb.BadInput("deploysim: --seed runs exactly one seed and --seeds a range from 1: give one of them")
			}
			if workers < 1 || workers > 64 {
				return cliverb.BadInput("deploysim: --workers %d: want 1..64", workers)
			}
			if real.on {
				if shardFlag != "" {
					return cliverb.BadInput("deploysim: --shard splits seeded simulations; --real is not seeded")
				}
				if !cmd.Flags().Changed("workers") {
					workers = 4
				}
				list := []int64{seed} // one fleet unless --seeds asks for more
				if cmd.Flags().Changed("seeds") {
					if seeds <= 0 {
						return cliverb.BadInput("deploysim: --seeds %d: want a positive count", seeds)
					}
					list = list[:0]
					for s := int64(1); s <= int64(seeds); s++ {
						list = append(list, s)
					}
				}
				return runReal(cmd, real, workers, list, asJSON, junitFile)
			}
			if err := needs(cmd, map[string]string{"executions": "real", "no-faults": "real", "deadline": "real", "broken": "real", "dsn": "real"}); err != nil {
				return err
			}
			names := deploysim.ScenarioNames()
			if scenario != "" {
				if _, err := deploysim.LookupScenario(scenario); err != nil {
					return cliverb.BadInput("deploysim: --scenario: %v", err)
				}
				names = []string{scenario}
			}
			if seeds <= 0 {
				return cliverb.BadInput("deploysim: --seeds %d: want a positive count", seeds)
			}
			first, n := int64(1), seeds
			if cmd.Flags().Changed("seed") {
				first, n = seed, 1
			}
			sh, err := shard.Parse(shardFlag)
			if err != nil {
				return cliverb.BadInput("deploysim: --shard: %v", err)
			}
			var all []deploysim.Result
			doc := junit.Suites{Name: "deploysim"}
			failed := 0
			for _, name := range names {
				suite := junit.Suite{Name: "deploysim/" + name}
				start := time.Now()
				events, bad, ran := 0, 0, 0
				for s := first; s < first+int64(n); s++ {
					if !deploysim.SeedInShard(sh, s) {
						continue
					}
					ran++
					t0 := time.Now()
					res := deploysim.Run(deploysim.Config{Scenario: name, Seed: s, Workers: workers})
					all = append(all, res)
					events += res.Events
					c := junit.Case{Name: fmt.Sprintf("seed-%d", s), ClassName: "deploysim." + name, Time: secs(time.Since(t0))}
					if !res.OK() {
						bad++
						var msgs []string
						for _, v := range res.Violations {
							msgs = append(msgs, v.Error())
							if !asJSON {
								fmt.Fprintln(cmd.ErrOrStderr(), v.Error())
							}
						}
						c.Failure = &junit.Message{Message: fmt.Sprintf("%d invariant violation(s); reproduce: %s", len(res.Violations), res.Repro), Body: strings.Join(msgs, "\n")}
					}
					suite.Add(c)
				}
				suite.Time = secs(time.Since(start))
				doc.Suites = append(doc.Suites, suite)
				failed += bad
				if !asJSON {
					part := ""
					if !sh.All() {
						part = " (shard " + sh.String() + " only: merge every shard's --json report with report merge)"
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%-16s %d seeds from %d: %d failed, %d events, %s%s\n", name, ran, first, bad, events, time.Since(start).Round(time.Millisecond), part)
				}
			}
			if asJSON {
				b, _ := json.MarshalIndent(deploysim.NewReport(sh, names, first, n, workers, all), "", "  ")
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
			}
			if err := writeOutputs(cmd, []outfile.Output{{Flag: "--junit", Path: junitFile, Write: func(w io.Writer) error { return junit.Write(w, doc) }}}); err != nil {
				return fmt.Errorf("deploysim: %w", err)
			}
			if failed > 0 {
				return cliverb.Verdict("deploysim: %d run(s) broke an invariant", failed)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&scenario, "scenario", "", "run only this scenario")
	cmd.Flags().IntVar(&seeds, "seeds", 10, "run seeds 1..N per scenario")
	cmd.Flags().Int64Var(&seed, "seed", 0, "run exactly this seed")
	cmd.Flags().IntVar(&workers, "workers", 3, "workers in the fleet")
	cmd.Flags().StringVar(&shardFlag, "shard", "", "run only shard i/n of the seeds (a stable partition by seed); merge the --json reports with report merge")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every run's result as JSON")
	cmd.Flags().StringVar(&junitFile, "junit", "", "write a JUnit XML report (one case per seed)")
	real.register(cmd)
	return cmd
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
