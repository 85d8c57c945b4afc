package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/junit"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/internal/runfilter"
	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/spf13/cobra"
)

const defaultCorpus = "goldens/corpus"

func newGoldensCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "goldens check|record",
		Short: "Check the kernel against the golden-log corpus, or record goldens",
		Long: `A golden is a directory goldens/corpus/<name>/ holding a flow script (flow.json), a driver
script (driver.json), the recorded log (log.ndjson), its folded state (state.json) and
recorded.json (harness, kernel ABI, event schema, profile, each driver action's result). The
formats are in docs/goldens.md.

"goldens check" re-runs every golden on the reference kernel and compares byte for byte;
"goldens record NAME" (or "goldens check --update") re-records, and the diff of the corpus is what a
person reviews.`,
	}
	cmd.AddCommand(newGoldensCheckCmd(), newGoldensRecordCmd())
	return cmd
}

func newGoldensCheckCmd() *cobra.Command {
	var o struct {
		corpus, run, junit, shard, html string
		json, update, noG2              bool
	}
	cmd := &cobra.Command{
		Use:   "check [--corpus DIR] [--run REGEX] [--shard i/n] [--json] [--junit FILE] [--html FILE] [--update]",
		Short: "Re-run every golden and compare its log, state and results (exit 1 on a divergence)",
		Long: `check loads every golden under --corpus (default goldens/corpus) and, for each one whose name
matches --run:

  1. runs flow.json under driver.json on the reference kernel (deterministic ids, virtual clock)
     and compares the log and the folded state with the recorded ones byte for byte, and each
     driver action's result with recorded.json;
  2. replays the recorded log as a fixture on the current kernel: nothing may be appended, the
     result and the fold must be the same, and no effect may run;
  3. re-runs it with each optional feature configured but unwired (G2: a budget that caps
     nothing, an idle timer store, an idle snapshot store, the Wave 2 flags on, an emit
     observer): the log must be byte-identical.

A failure names the golden, its clause ids, the stage and the first divergence (envelope index,
event type, JSON Pointer and a (-want +got) diff). --update re-records the selected goldens
instead (nothing is written unless every selected golden records).

--shard i/n checks only the goldens whose name falls in shard i of n (a stable partition by name)
for a CI matrix; a shard's verdict is its part's only. --json prints {"kind": "goldens", "shard",
"corpus" (a digest of its content), "run", "noG2", "checked", "failed", "results": [...]}; "report
merge" joins the --json reports of all n shards into the report, and the verdict, of one run.

Exit 0 when every golden passes, 1 when one fails, 2 on bad input (a malformed script, driver or
log, naming the file, statement or envelope index and field).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			re, err := runfilter.Compile(o.run)
			if err != nil {
				return cliverb.BadInput("%v", err)
			}
			sh, err := shard.Parse(o.shard)
			if err != nil {
				return cliverb.BadInput("--shard: %v", err)
			}
			corpus, err := goldens.LoadCorpus(o.corpus)
			if err != nil {
				return cliverb.BadInput("%v%s", err, corpusHint(cmd, o.corpus))
			}
			if err := runfilter.Selects(re, "golden of "+o.corpus, goldenNames(corpus)); err != nil {
				return cliverb.BadInput("%v", err)
			}
			if o.update {
				if !sh.All() {
					return cliverb.BadInput("--shard splits a check; --update re-records every selected golden (use --run)")
				}
				return recordGoldens(cmd, corpus, re)
			}
			copts := goldens.CheckOptions{Run: re, NoG2: o.noG2, Harness: toolVersion, Shard: sh}
			var res []goldens.Result
			outs := []outfile.Output{{Flag: "--junit", Path: o.junit, Write: func(w io.Writer) error { return writeGoldensJUnit(w, o.corpus, res) }},
				{Flag: "--html", Path: o.html, Write: func(w io.Writer) error {
					return reportview.WriteHTML(w, ofThisHarness(goldens.NewReport(corpus, copts, res).HTMLPage(invokedAs(os.Args[0]))))
				}}}
			if err := checkOutputs(outs); err != nil {
				return cliverb.BadInput("%v", err)
			}
			res = goldens.Check(cmd.Context(), corpus, copts)
			if len(res) == 0 && sh.All() {
				return cliverb.BadInput("no golden under %s matches --run %q", o.corpus, o.run)
			}
			if err := writeOutputs(cmd, outs); err != nil {
				return err
			}
			failed := 0
			if o.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(goldens.NewReport(corpus, copts, res)); err != nil {
					return err
				}
			}
			for _, r := range res {
				if r.Failed() {
					failed++
					if !o.json {
						fmt.Fprintln(cmd.OutOrStdout(), r.String())
					}
				}
			}
			if !o.json {
				note := ""
				if !sh.All() {
					note = " (shard " + sh.String() + " only: merge every shard's --json report with report merge for the run's verdict)"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "goldens: %d checked, %d passed, %d failed%s%s\n", len(res), len(res)-failed, failed, goldens.NewReport(corpus, copts, res).Subset(), note)
			}
			if failed > 0 {
				return cliverb.Verdict("%d of %d goldens diverged", failed, len(res))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.corpus, "corpus", defaultCorpus, "the corpus directory")
	f.StringVar(&o.run, "run", "", "check only goldens whose name matches this regular expression")
	f.BoolVar(&o.json, "json", false, "print the report as JSON (the shape report merge reads)")
	f.StringVar(&o.shard, "shard", "", "check only shard i/n of the goldens (a stable partition by name); merge the --json reports with report merge")
	f.StringVar(&o.junit, "junit", "", "write a JUnit XML report to FILE")
	f.StringVar(&o.html, "html", "", "write a self-contained HTML report to FILE")
	f.BoolVar(&o.update, "update", false, "re-record the selected goldens instead of checking them")
	f.BoolVar(&o.noG2, "no-g2", false, "skip the G2 unwired-feature re-runs")
	return cmd
}

func newGoldensRecordCmd() *cobra.Command {
	var corpus string
	var all bool
	cmd := &cobra.Command{
		Use:   "record NAME... | --all [--corpus DIR]",
		Short: "Record (or re-record) goldens from their flow.json and driver.json",
		Long: `record runs each named golden's flow.json under its driver.json on the reference kernel and
writes log.ndjson, state.json and recorded.json beside them. Review the diff before committing:
a re-recorded golden is a claim that the new behaviour is right. Nothing is written unless every
named golden loads and records. Exit 0 on success, 2 on bad input.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) > 0) {
				return cliverb.BadInput("record: name goldens or pass --all (not both)")
			}
			var gs []*goldens.Golden
			if all {
				var err error
				if gs, err = goldens.LoadCorpus(corpus); err != nil {
					return cliverb.BadInput("%v%s", err, corpusHint(cmd, corpus))
				}
			}
			for _, n := range args {
				g, err := goldens.Load(filepath.Join(corpus, n))
				if err != nil {
					return cliverb.BadInput("%v%s", err, corpusHint(cmd, corpus))
				}
				gs = append(gs, g)
			}
			return recordGoldens(cmd, gs, nil)
		},
	}
	cmd.Flags().StringVar(&corpus, "corpus", defaultCorpus, "the corpus directory")
	cmd.Flags().BoolVar(&all, "all", false, "record every golden of the corpus")
	return cmd
}

// recordGoldens records every selected golden first and writes only when all recorded.
func recordGoldens(cmd *cobra.Command, gs []*goldens.Golden, re *regexp.Regexp) error {
	type rec struct {
		g *goldens.Golden
		r *goldens.Recording
	}
	var recs []rec
	for _, g := range gs {
		if re != nil && !re.MatchString(g.Name) {
			continue
		}
		r, err := goldens.Record(cmd.Context(), g, toolVersion, flowscript.RunOptions{})
		if err != nil {
			return fmt.Errorf("%v (nothing written)", err)
		}
		recs = append(recs, rec{g, r})
	}
	for _, x := range recs {
		if err := x.r.Write(x.g.Dir); err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "recorded %s: %d envelopes\n", x.g.Name, len(x.r.Run.Log))
	}
	return nil
}

func writeGoldensJUnit(w io.Writer, corpus string, res []goldens.Result) error {
	s := junit.Suite{Name: "goldens"}
	var total int64
	for _, r := range res {
		total += r.Millis
		c := junit.Case{Name: r.Name, ClassName: "goldens", File: filepath.Join(corpus, r.Name), Time: strconv.FormatFloat(float64(r.Millis)/1000, 'f', 3, 64)}
		if r.Failed() {
			var b strings.Builder
			for _, p := range r.Problems {
				fmt.Fprintf(&b, "%s: %s\n", p.Stage, p.Message)
			}
			c.Failure = &junit.Message{Message: strings.SplitN(r.String(), "\n", 2)[0], Body: b.String()}
		}
		s.Add(c)
	}
	return junit.Write(w, junit.Suites{Name: "loom-conform goldens", Tests: s.Tests, Failures: s.Failures, Suites: []junit.Suite{s}})
}

// corpusHint tells a caller whose default corpus is missing where it is: goldens/corpus is a
// directory of a clone, so outside one the corpus must be named.
func corpusHint(cmd *cobra.Command, corpus string) string {
	if cmd.Flags().Changed("corpus") || corpus != defaultCorpus {
		return ""
	}
	if _, err := os.Stat(corpus); err == nil {
		return ""
	}
	return " (" + defaultCorpus + " is a directory of a loom-conform clone: run from the clone's root, or name the corpus with --corpus DIR)"
}

// goldenNames lists the corpus's golden names, in order.
func goldenNames(corpus []*goldens.Golden) []string {
	out := make([]string, len(corpus))
	for i, g := range corpus {
		out[i] = g.Name
	}
	return out
}
