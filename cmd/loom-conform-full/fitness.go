package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/loom-kernel/loom-conform/catalog"
	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/internal/runfilter"
	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/spf13/cobra"
)

func newFitnessCmd() *cobra.Command {
	var o struct {
		list, markdown         bool
		allowUnknown           bool
		run, json, junit, html string
		root, proofs           string
		shard                  string
		rounds                 int
	}
	cmd := &cobra.Command{
		Use:   "fitness [--list [--markdown]] [--run REGEX] [--shard i/n] [--json FILE|-] [--junit FILE|-] [--html FILE|-] [--root DIR] [--proofs DIR] [--rounds N]",
		Short: "Run the fitness gates of spec §10 (pins, kits, vectors, replay, G2, performance ratios, coverage)",
		Long: `Run the fitness gates: the continuous checks of spec §10, each a guarantee with its clause ids,
what it runs, a threshold and where CI enforces it (docs/fitness.md lists them all).

Gate kinds: "checks" runs catalog checks with go test (so run it from the module root, or name it
with --root); "bench" runs a Go benchmark and judges a metric it reports over 5 runs; "ratio"
measures an A/B pair and an A/A control interleaved in this process and judges the 95 %
interval of B/A (--rounds at a time, 21 by default and at least 15, up to ten times that while
undecided);
"coverage" judges clause coverage against the reviewed ledger fitness/coverage-ledger.json;
"mutants" judges the proof records of the last make test (--proofs DIR): every registered mutant
must have been rejected by a check in that run.

Verdicts: pass; fail; unknown (not judged: a ratio whose interval still straddles its limit, or
tests skipped for a missing service outside CI, no proof records outside CI) — never a pass; pending (the gate's runner is not
built yet) — listed, never a pass.

--shard i/n runs a stable part of the gates (by gate id) for a CI matrix; report merge joins the
shards' --json reports into the report one run gives.

Progress goes to stderr, the table to stdout. --list prints the gates without running them
(--markdown: the docs/fitness.md text). Exit 0 when every gate passed; 1 when a gate failed, or
when a gate is unknown or pending (not judged is not a pass) unless --allow-unknown accepts
those; 2 on bad flags.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			gates := fitness.Gates()
			registered := len(gates)
			re, err := runfilter.Compile(o.run)
			if err != nil {
				return cliverb.BadInput("%v", err)
			}
			if err := runfilter.Selects(re, "gate", gateIDs(gates)); err != nil {
				return cliverb.BadInput("%v", err)
			}
			if re != nil {
				gates = fitness.Select(gates, re)
			}
			sh, err := shard.Parse(o.shard)
			if err != nil {
				return cliverb.BadInput("--shard: %v", err)
			}
			gates = fitness.Shard(gates, sh)
			if o.list {
				if o.markdown {
					return fitness.WriteDoc(cmd.OutOrStdout(), gates)
				}
				for _, g := range gates {
					status := string(g.Kind)
					if g.Pending != "" {
						status = "pending"
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%-24s %-9s %s\n", g.ID, status, g.Threshold)
				}
				return nil
			}
			if o.rounds != 0 && o.rounds < 15 {
				return cliverb.BadInput("--rounds %d: a ratio gate needs at least 15 rounds", o.rounds)
			}
			if st, err := os.Stat(o.root + "/go.mod"); err != nil || st.IsDir() {
				return cliverb.BadInput("--root %q is not the module root (no go.mod): checks and bench gates run go test there", o.root)
			}
			var report fitness.Report
			outs := []outfile.Output{{Flag: "--json", Path: o.json, Write: func(w io.Writer) error { return report.RenderJSON(w) }},
				{Flag: "--junit", Path: o.junit, Write: func(w io.Writer) error { return report.RenderJUnit(w) }},
				{Flag: "--html", Path: o.html, Write: func(w io.Writer) error {
					return reportview.WriteHTML(w, ofThisHarness(report.HTMLPage(invokedAs(os.Args[0]))))
				}}}
			if err := checkOutputs(outs); err != nil {
				return cliverb.BadInput("%v", err)
			}
			table := cmd.OutOrStdout()
			if outfile.ToStdout(outs) {
				table = cmd.ErrOrStderr()
			}
			ledger, err := fitness.CoverageLedger()
			if err != nil {
				return err
			}
			results := fitness.Run(cmd.Context(), gates, fitness.Options{
				Root: o.root, Rounds: o.rounds, Progress: cmd.ErrOrStderr(),
				Checks: catalog.Checks(), CoverageLedger: ledger,
				Mutants: catalog.Mutants(), ProofsDir: latestProofs(o.root, o.proofs),
				RequireProofs: os.Getenv("CI") == "true",
			})
			report = fitness.NewReport(results)
			report.Shard = sh.String()
			if re != nil {
				report.Run, report.Registered = o.run, registered
			}
			if err := report.RenderTable(table); err != nil {
				return err
			}
			if err := writeOutputs(cmd, outs); err != nil {
				return err
			}
			if report.Failed {
				return cliverb.Verdict("fitness: %d gate(s) failed", report.Summary[string(fitness.Fail)])
			}
			if n := report.Summary[string(fitness.Unknown)] + report.Summary[string(fitness.Pending)]; n > 0 && !o.allowUnknown {
				return cliverb.Verdict("fitness: %d gate(s) unknown or pending: not judged, so not passed (--allow-unknown accepts them)", n)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.list, "list", false, "list the gates without running them")
	f.BoolVar(&o.markdown, "markdown", false, "with --list: print docs/fitness.md")
	f.BoolVar(&o.allowUnknown, "allow-unknown", false, "exit 0 when no gate failed although some are unknown or pending")
	f.StringVar(&o.run, "run", "", "run only the gates whose id matches REGEX")
	f.StringVar(&o.json, "json", "", "write the JSON report to FILE (- = stdout)")
	f.StringVar(&o.junit, "junit", "", "write JUnit XML to FILE (- = stdout)")
	f.StringVar(&o.html, "html", "", "write a self-contained HTML report to FILE (- = stdout)")
	f.StringVar(&o.root, "root", ".", "the module root go test runs in")
	f.StringVar(&o.proofs, "proofs", os.Getenv(proof.Env), "proof records of a test run (default: $"+proof.Env+", else the newest test-results/proofs/run-* under --root)")
	f.StringVar(&o.shard, "shard", "", "run only shard i/n of the gates (a stable partition by gate id); merge the JSON reports with report merge")
	f.IntVar(&o.rounds, "rounds", 21, "interleaved rounds a ratio gate measures before it judges, and adds while undecided (at least 15)")
	return cmd
}

// latestProofs is dir when given, else the newest run directory make test left under root.
func latestProofs(root, dir string) string {
	if dir != "" {
		return dir
	}
	runs, _ := filepath.Glob(filepath.Join(root, "test-results", "proofs", "run-*"))
	if len(runs) == 0 {
		return ""
	}
	sort.Strings(runs)
	return runs[len(runs)-1]
}

func gateIDs(gates []fitness.Gate) []string {
	out := make([]string, len(gates))
	for i, g := range gates {
		out[i] = g.ID
	}
	return out
}
