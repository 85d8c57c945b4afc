package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/internal/runfilter"
	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/vectors"
	"github.com/spf13/cobra"
)

func newVectorsCmd() *cobra.Command {
	var o struct {
		profile, exec, ledger, junit, report, html string
		run, writeLedger, shard                    string
		timeout                                    time.Duration
		serve, quiet, strict                       bool
	}
	cmd := &cobra.Command{
		Use:   "vectors [DIR] [--profile V] [--run REGEX] [--exec 'CMD ARGS'] [--timeout D] [--strict] [--expected-failures FILE] [--shard i/n] [--junit FILE] [--report FILE] [--html FILE]",
		Short: "Run the language-neutral fold vectors against the reference fold or a foreign one",
		Long: `Run the fold vectors (ADR 0026 T2.3; format and protocol in docs/vectors.md): every *.json file
under DIR (default: the corpus built into this binary, vectors/corpus) is one vector.

Without --exec the reference fold answers in process. With --exec the command (split like a
shell would, without one) is started once and driven over the line protocol on its stdin and
stdout; a vector without an answer within --timeout, or whose process dies, is "unknown" and the
process is restarted. The fold is pinged before the first vector and after two unanswered vectors
in a row; when the ping goes unanswered, every remaining vector is unknown at once, so a hanging
fold costs about 3 x --timeout, not one timeout per vector. --serve instead makes this binary the
serving side of the protocol, with the reference fold behind it.

A vector's comparison cites its own clauses (docs/vectors.md, "Tiers"): a fold that fails only
comparisons citing choices (which error kind names a malformed log, a precedence the spec leaves
open) meets the spec, and the run passes with "N recommendation(s) not met"; --strict holds the
fold to them, so they fail the run too.

--run REGEX runs only the vectors whose id matches. --expected-failures FILE lists known
failures in the ledger format certify uses (docs/ledger.md):
  {"expectedFailures": [{"check": "<vector id>", "reason": "...", "expires": "YYYY-MM-DD"}]}
an unlisted failure fails the run, and so does a listed vector that passes or an expired entry.
--write-ledger FILE writes a ledger listing every failing vector, to start one.

--shard i/n runs only the vectors whose id falls in shard i of n (a stable partition by vector id,
the same for every runner), for a CI matrix. A shard's verdict is its part's only; "report merge"
joins the --report files of all n shards into the report, and the verdict, one whole run gives.

Progress goes to stderr, the summary table to stdout (to stderr when a report goes to stdout
with "-"). Exit 0 when every selected vector passes (modulo the ledger and, without --strict, the
recommendations), 1 on a required failure (any failure under --strict), an unknown verdict or a
run that judged nothing, 2 on bad input (a malformed vector, ledger or flag).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.serve {
				if len(args) > 0 || o.exec != "" {
					return cliverb.BadInput("vectors --serve takes no DIR and no --exec")
				}
				return vectors.Serve(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), vectors.Reference{})
			}
			var corpus vectors.Corpus
			var err error
			if len(args) == 1 {
				if st, statErr := os.Stat(args[0]); statErr != nil || !st.IsDir() {
					return cliverb.BadInput("vectors: DIR %q is not a directory", args[0])
				}
				corpus, err = vectors.LoadDir(args[0])
			} else {
				corpus, err = vectors.Embedded()
			}
			if err != nil {
				return cliverb.BadInput("%v", err)
			}
			if err := positiveDuration("--timeout", o.timeout); err != nil {
				return cliverb.BadInput("vectors: %v", err)
			}
			sh, err := shard.Parse(o.shard)
			if err != nil {
				return cliverb.BadInput("vectors: --shard: %v", err)
			}
			cfg := vectors.Config{Timeout: o.timeout, Progress: cmd.ErrOrStderr(), Shard: sh, Target: "reference", Strict: o.strict}
			if cfg.Run, err = runfilter.Compile(o.run); err != nil {
				return cliverb.BadInput("vectors: %v", err)
			}
			if err := runfilter.Selects(cfg.Run, "vector", corpus.IDs()); err != nil {
				return cliverb.BadInput("vectors: %v", err)
			}
			var rep vectors.Report
			outs := []outfile.Output{{Flag: "--junit", Path: o.junit, Write: func(w io.Writer) error { return rep.WriteJUnit(w) }},
				{Flag: "--report", Path: o.report, Write: func(w io.Writer) error { return rep.WriteJSON(w) }},
				{Flag: "--html", Path: o.html, Write: func(w io.Writer) error {
					return reportview.WriteHTML(w, ofThisHarness(rep.HTMLPage(invokedAs(os.Args[0]))))
				}},
				{Flag: "--write-ledger", Path: o.writeLedger, Write: func(w io.Writer) error { return vectors.WriteLedger(w, rep, time.Now()) }}}
			if err := checkOutputs(outs); err != nil {
				return cliverb.BadInput("vectors: %v", err)
			}
			summaryOut := cmd.OutOrStdout()
			if outfile.ToStdout(outs) {
				summaryOut = cmd.ErrOrStderr()
			}
			if o.quiet {
				cfg.Progress = nil
			}
			if o.profile != "" {
				if _, err := fold.ProfileFor(o.profile); err != nil {
					return cliverb.BadInput("--profile: %v", err)
				}
				cfg.Profile = o.profile
			}
			if o.ledger != "" {
				data, err := os.ReadFile(o.ledger)
				if err != nil {
					return cliverb.BadInput("--expected-failures: %v", err)
				}
				if cfg.Ledger, err = vectors.ParseLedger(o.ledger, data); err != nil {
					return cliverb.BadInput("--expected-failures: %v", err)
				}
				if err := cfg.Ledger.Names("vector of the corpus", func(id string) bool { _, ok := corpus.ByID(id); return ok }); err != nil {
					return cliverb.BadInput("vectors: %v", err)
				}
			}
			var folder vectors.Folder = vectors.Reference{}
			if cmd.Flags().Changed("exec") && strings.TrimSpace(o.exec) == "" {
				// An unset variable ($FOLD) would otherwise test the reference against itself.
				return cliverb.BadInput("vectors: --exec is empty: name the foreign fold command (an unset $FOLD?)")
			}
			if o.exec != "" {
				argv, err := vectors.SplitArgs(o.exec)
				if err != nil {
					return cliverb.BadInput("vectors: --exec %q: %v", o.exec, err)
				}
				p, err := vectors.NewProcess(argv, "")
				if err != nil {
					return cliverb.BadInput("vectors: --exec %q: %v", o.exec, err)
				}
				defer p.Close()
				folder = p
				cfg.Target = o.exec
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			start := time.Now()
			rep = vectors.Run(ctx, corpus, folder, cfg)
			if err := rep.Render(summaryOut); err != nil {
				return err
			}
			if p, ok := folder.(*vectors.Process); ok {
				starts, startup := p.Overhead()
				if _, err := fmt.Fprintln(summaryOut, overheadLine("fold process(es)", starts, startup, time.Since(start))); err != nil {
					return err
				}
			}
			if err := writeOutputs(cmd, outs); err != nil {
				return fmt.Errorf("vectors: %w", err)
			}
			if !rep.OK() {
				c := rep.Counts()
				if !rep.Judged() {
					return cliverb.Verdict("vectors: nothing was judged (%d selected, %d unknown, %d left out): the run fails", len(rep.Results), c.Unknown, rep.Excluded)
				}
				if o.strict && c.NotMet > 0 {
					return cliverb.Verdict("vectors: %d failed (%d of them recommendations, held by --strict), %d unknown, %d ledger error(s)", c.Fail, c.NotMet, c.Unknown, len(rep.LedgerErrors))
				}
				return cliverb.Verdict("vectors: %d failed, %d unknown, %d ledger error(s)", c.Fail-c.NotMet, c.Unknown, len(rep.LedgerErrors))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.profile, "profile", "", "run only the fold vectors of this schema profile (1.20.0..1.26.0)")
	f.StringVar(&o.exec, "exec", "", "drive this foreign fold command over the line protocol (no shell)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long to wait for one vector's answer")
	f.StringVar(&o.ledger, "expected-failures", "", `JSON ledger of known failures: {"expectedFailures":[{"check","reason","expires"?}]}`)
	f.StringVar(&o.junit, "junit", "", "write JUnit XML to FILE (- = stdout)")
	f.StringVar(&o.report, "report", "", "write the JSON report to FILE (- = stdout)")
	f.StringVar(&o.html, "html", "", "write a self-contained HTML report to FILE (- = stdout)")
	f.StringVar(&o.run, "run", "", "run only the vectors whose id matches this regular expression")
	f.StringVar(&o.shard, "shard", "", "run only shard i/n of the vectors (a stable partition by id); merge the --report files with report merge")
	f.StringVar(&o.writeLedger, "write-ledger", "", "write a ledger listing every failing vector to FILE (- = stdout), to start one")
	_ = cmd.RegisterFlagCompletionFunc("profile", cliverb.FixedCompletion(cliverb.ProfileNames()...))
	for _, name := range []string{"junit", "report", "html", "write-ledger", "expected-failures"} {
		_ = cmd.MarkFlagFilename(name)
	}
	f.BoolVar(&o.serve, "serve", false, "serve the line protocol on stdin/stdout with the reference fold")
	f.BoolVar(&o.quiet, "quiet", false, "no progress on stderr")
	f.BoolVar(&o.strict, "strict", false, "hold the fold to recommendations: a failure citing only choices fails the run too")
	cmd.AddCommand(newVectorsFuzzCmd())
	return cmd
}
