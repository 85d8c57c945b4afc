package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/vectors"
	"github.com/loom-kernel/loom-conform/vectors/fuzz"
	"github.com/spf13/cobra"
)

func newVectorsFuzzCmd() *cobra.Command {
	var o struct {
		exec, profile, out string
		known, writeKnown  string
		seed               uint64
		count              int
		timeout            time.Duration
	}
	cmd := &cobra.Command{
		Use:   "fuzz --exec 'CMD ARGS' [--seed S] [--count N] [--profile V] [--out DIR] [--known FILE] [--write-known FILE]",
		Short: "Differential testing: find the logs on which a foreign fold and the reference disagree, grouped by root cause",
		Long: `fuzz generates --count event logs with the fold property kit's generators (kits/foldprops),
some cut into a snapshot plus tail, some given hostile payload values (1e308, -0, 1e400, integers
beyond 2^53, lone surrogates, __proto__, deep nesting) and some one malformed envelope (a member
missing, null or mistyped, 0.0 for 0, another execution, a gap). It folds each with the reference
and with the fold under test, driven over the vectors line protocol (docs/vectors.md §3) like
'vectors --exec'. The folds agree when they print the same bytes or refuse with the same error kind.

It compares every log, and groups the disagreements by root cause: a class is the shape of the
shrunk log (its event types) and where the two answers first differ (a JSON Pointer into the
states, data keys written *, or the two error kinds), printed as "SHAPE @ PATH". The first log of
each class is shrunk to a minimal one that still disagrees and written to --out as a fold vector
(fuzz-seed-S.json) whose expectation is the reference's answer and whose reason and clauses are
left empty for you to fill in (the vector loader refuses the file until you do: decide first
which fold is right). The summary says how many classes and how many logs each, with both answers
and the one-line command that reproduces each class.

--known FILE sets classes aside: {"knownClasses": [{"class": "SHAPE @ PATH", "reason": "…"}]}, so a
known deviation does not hide a second root cause; --write-known FILE (- = stdout) writes the
classes of this run in that form, to start one. Log i uses seed --seed + i and, unless --profile
pins one, the seven schema profiles in turn.

A fold under test that crashes, exits, breaks the protocol or does not answer within --timeout
has failed: the run stops there and prints its error and the tail of its stderr (never a
disagreement, never a vector).

Exit 0 when every log agrees or every class is set aside, 1 when a class is open, 2 on bad flags,
command or ledger, 3 when the fold under test failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.exec == "" {
				return cliverb.BadInput("vectors fuzz: --exec is required (the fold under test)")
			}
			cfg := fuzz.Config{Seed: o.seed, Count: o.count, Timeout: o.timeout, Progress: cmd.ErrOrStderr()}
			if o.count <= 0 {
				return cliverb.BadInput("--count: want a positive number of logs, got %d", o.count)
			}
			if o.profile != "" {
				p, err := fold.ProfileFor(o.profile)
				if err != nil {
					return cliverb.BadInput("--profile: %v", err)
				}
				cfg.Profile = p
			}
			if st, err := os.Stat(o.out); err != nil || !st.IsDir() {
				return cliverb.BadInput("--out: %q is not a directory", o.out)
			}
			if o.known != "" {
				data, err := os.ReadFile(o.known)
				if err != nil {
					return cliverb.BadInput("--known: %v", err)
				}
				if cfg.Known, err = fuzz.ParseKnown(o.known, data); err != nil {
					return cliverb.BadInput("--known: %v", err)
				}
			}
			var res fuzz.Result
			outs := []outfile.Output{{Flag: "--write-known", Path: o.writeKnown, Write: func(w io.Writer) error { return fuzz.WriteKnown(w, res) }}}
			if err := checkOutputs(outs); err != nil {
				return cliverb.BadInput("vectors fuzz: %v", err)
			}
			argv, err := vectors.SplitArgs(o.exec)
			if err != nil {
				return cliverb.BadInput("--exec: %v", err)
			}
			p, err := vectors.NewProcess(argv, "")
			if err != nil {
				return cliverb.BadInput("--exec: %v", err)
			}
			defer p.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			start := time.Now()
			res, err = fuzz.Run(ctx, cfg, vectors.Reference{}, p)
			if err != nil {
				return fmt.Errorf("vectors fuzz: stopped after %d logs: %w", res.Logs, err)
			}
			w := cmd.OutOrStdout()
			if outfile.ToStdout(outs) {
				w = cmd.ErrOrStderr()
			}
			took := time.Since(start)
			if err := writeFuzzResult(w, o.exec, o.out, res, took); err != nil {
				return err
			}
			starts, startup := p.Overhead()
			if _, err := fmt.Fprintln(w, overheadLine("fold process(es)", starts, startup, took)); err != nil {
				return err
			}
			if err := writeOutputs(cmd, outs); err != nil {
				return fmt.Errorf("vectors fuzz: %w", err)
			}
			switch {
			case res.Failure != nil:
				return &cliverb.ExitError{Code: 3, Err: fmt.Errorf("vectors fuzz: the foreign fold failed on seed %d: %v", res.Failure.Seed, res.Failure.Err)}
			case len(res.Open()) > 0:
				return cliverb.Verdict("vectors fuzz: the fold under test disagrees with the reference in %d class(es)", len(res.Open()))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.exec, "exec", "", "the fold under test: a command speaking the vectors line protocol (no shell)")
	fl.Uint64Var(&o.seed, "seed", 1, "seed of the first log (log i uses seed+i)")
	fl.IntVar(&o.count, "count", 1000, "number of logs to compare")
	fl.StringVar(&o.profile, "profile", "", "fold every log as this schema profile (default: the seven profiles in turn)")
	fl.StringVar(&o.out, "out", ".", "directory the shrunk vectors are written to")
	fl.StringVar(&o.known, "known", "", `ledger of classes to set aside: {"knownClasses": [{"class", "reason"}]}`)
	fl.StringVar(&o.writeKnown, "write-known", "", "write this run's classes as a --known ledger to FILE (- = stdout)")
	fl.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long to wait for one answer")
	for _, name := range []string{"out", "known", "write-known"} {
		_ = cmd.MarkFlagFilename(name)
	}
	return cmd
}

// writeFuzzResult prints the run: the foreign fold's failure, or the classes (open ones first,
// each with its representative's answers, vector file and reproduce line), then the tally.
func writeFuzzResult(w io.Writer, exec, out string, res fuzz.Result, took time.Duration) error {
	if f := res.Failure; f != nil {
		fmt.Fprintf(w, "FOREIGN FOLD FAILED: on log %d (seed %d, profile %s) after %d disagreement(s): %v\n", res.Logs, f.Seed, f.Profile.Version(), res.Disagreements, f.Err)
		fmt.Fprintf(w, "reproduce: loom-conform vectors fuzz --exec %s --seed %d --count 1 --profile %s\n", shq.Quote(exec), f.Seed, f.Profile.Version())
		fmt.Fprintln(w, "(not a disagreement: the fold did not answer; fix the crash, then fuzz again)")
	}
	open := res.Open()
	for i, c := range open {
		f := c.Finding
		file := filepath.Join(out, f.FileName())
		if err := outfile.WriteFile(file, f.VectorFile()); err != nil {
			return fmt.Errorf("vectors fuzz: %w", err)
		}
		fmt.Fprintf(w, "\nclass %d of %d: %s — %s\n", i+1, len(open), c.Key, c.Summary())
		fmt.Fprintf(w, "DISAGREE: log %d (seed %d, profile %s), shrunk from %d to %d envelope(s) in %d fold pair(s)\n%s\n",
			f.Seed, f.Seed, f.Profile.Version(), len(f.Original.Events), len(f.Minimal.Events), f.Shrinks, f.Summary())
		fmt.Fprintf(w, "vector: %s (fill in reason and clauses, then decide which fold is right)\n", file)
		fmt.Fprintf(w, "reproduce: %s\n", f.Reproduce(exec))
	}
	known := 0
	for _, c := range res.Classes {
		if c.Known != "" {
			known += c.Logs
			fmt.Fprintf(w, "\nset aside (--known): %s — %s: %s\n", c.Key, c.Summary(), c.Known)
		}
	}
	if res.Unshrunk > 0 {
		fmt.Fprintf(w, "\n%d more disagreeing log(s) past the first 20 classes were counted, not classified\n", res.Unshrunk)
	}
	verdict := "PASS"
	switch {
	case res.Failure != nil:
		verdict = "FAIL (the foreign fold failed)"
	case len(open) > 0:
		verdict = "FAIL"
	}
	_, err := fmt.Fprintf(w, "\n%s: %d log(s), %d disagree in %d class(es) (%d open; %d log(s) in known classes set aside) (%s)\n",
		verdict, res.Logs, res.Disagreements, len(res.Classes), len(open), known, took.Round(time.Millisecond))
	return err
}
