package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/vectors"
	"github.com/loom-kernel/loom-conform/vectors/fuzz"
	"github.com/spf13/cobra"
)

func newVectorsFuzzCmd() *cobra.Command {
	var o struct {
		exec, profile, out string
		seed               uint64
		count              int
		timeout            time.Duration
	}
	cmd := &cobra.Command{
		Use:   "fuzz --exec 'CMD ARGS' [--seed S] [--count N] [--profile V] [--out DIR]",
		Short: "Differential testing: find the first log on which a foreign fold and the reference disagree",
		Long: `fuzz generates --count event logs with the fold property kit's generators (kits/foldprops),
some cut into a snapshot plus tail, some given hostile payload values (1e308, -0, 1e400, integers
beyond 2^53, lone surrogates, __proto__, deep nesting) and some one malformed envelope (a member
missing, null or mistyped, 0.0 for 0, another execution, a gap). It folds each with the reference
and with the fold under test, driven over the vectors line protocol (docs/vectors.md §3) like
'vectors --exec'. The folds agree when they print the same bytes or refuse with the same error kind.

On the first disagreement it shrinks the log to a minimal one that still disagrees, writes it to
--out as a fold vector (fuzz-seed-S.json) whose expectation is the reference's answer and whose
reason and clauses are left empty for you to fill in (the vector loader refuses the file until
you do: decide first which fold is right), prints both answers and the one-line command that
reproduces the finding, and exits 1. Log i uses seed --seed + i and, unless --profile pins one,
the seven schema profiles in turn. Exit 0 when every log agrees, 2 on bad flags or command.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.exec == "" {
				return badInput("vectors fuzz: --exec is required (the fold under test)")
			}
			cfg := fuzz.Config{Seed: o.seed, Count: o.count, Timeout: o.timeout, Progress: cmd.ErrOrStderr()}
			if o.count <= 0 {
				return badInput("--count: want a positive number of logs, got %d", o.count)
			}
			if o.profile != "" {
				p, err := fold.ProfileFor(o.profile)
				if err != nil {
					return badInput("--profile: %v", err)
				}
				cfg.Profile = p
			}
			if st, err := os.Stat(o.out); err != nil || !st.IsDir() {
				return badInput("--out: %q is not a directory", o.out)
			}
			argv, err := vectors.SplitArgs(o.exec)
			if err != nil {
				return badInput("--exec: %v", err)
			}
			p, err := vectors.NewProcess(argv, "")
			if err != nil {
				return badInput("--exec: %v", err)
			}
			defer p.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			start := time.Now()
			res, err := fuzz.Run(ctx, cfg, vectors.Reference{}, p)
			if err != nil {
				return fmt.Errorf("vectors fuzz: stopped after %d logs: %w", res.Logs, err)
			}
			w := cmd.OutOrStdout()
			f := res.Finding
			if f == nil {
				fmt.Fprintf(w, "PASS: %d log(s) from seed %d, no disagreement (%s)\n", res.Logs, o.seed, time.Since(start).Round(time.Millisecond))
				return nil
			}
			file := filepath.Join(o.out, f.FileName())
			if err := os.WriteFile(file, f.VectorFile(), 0o644); err != nil {
				return fmt.Errorf("vectors fuzz: %w", err)
			}
			fmt.Fprintf(w, "DISAGREE: log %d (seed %d, profile %s), shrunk from %d to %d envelope(s) in %d fold pair(s)\n%s\n",
				res.Logs, f.Seed, f.Profile.Version(), len(f.Original.Events), len(f.Minimal.Events), f.Shrinks, f.Summary())
			fmt.Fprintf(w, "vector: %s (fill in reason and clauses, then decide which fold is right)\n", file)
			fmt.Fprintf(w, "reproduce: %s\n", f.Reproduce(o.exec))
			return verdict("vectors fuzz: the fold under test disagrees with the reference on seed %d", f.Seed)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.exec, "exec", "", "the fold under test: a command speaking the vectors line protocol (no shell)")
	fl.Uint64Var(&o.seed, "seed", 1, "seed of the first log (log i uses seed+i)")
	fl.IntVar(&o.count, "count", 1000, "number of logs to compare")
	fl.StringVar(&o.profile, "profile", "", "fold every log as this schema profile (default: the seven profiles in turn)")
	fl.StringVar(&o.out, "out", ".", "directory the shrunk vector is written to")
	fl.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long to wait for one answer")
	return cmd
}
