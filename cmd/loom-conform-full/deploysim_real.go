package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/deploysim/realfleet"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/junit"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/spf13/cobra"
)

// realFlags are deploysim's --real mode flags.
type realFlags struct {
	on       bool
	dsn      string
	noFaults bool
	orders   int
	deadline time.Duration
	broken   string
}

func (r *realFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&r.on, "real", false, "run worker processes (loom-conform worker) on PostgreSQL, SIGKILL and SIGSTOP them at seeded moments, and check the invariants (needs --dsn)")
	cmd.Flags().StringVar(&r.dsn, "dsn", "", "PostgreSQL DSN for --real (default $"+storespg.DSNEnv+"; a fresh schema is created and dropped; the workers get it in their environment, never on their command line)")
	cmd.Flags().BoolVar(&r.noFaults, "no-faults", false, "with --real: no kills or pauses (throughput figures)")
	cmd.Flags().IntVar(&r.orders, "executions", 16, "with --real: executions to run (half orders, half batches)")
	cmd.Flags().DurationVar(&r.deadline, "deadline", realfleet.DefaultDeadline, "with --real: how long the fleet is given to settle; what is unfinished then is not judged and the run's verdict is unknown (exit 1)")
	cmd.Flags().StringVar(&r.broken, "broken", "", "with --real: plant a broken worker in the fleet (proves the invariants catch it)")
	_ = cmd.Flags().MarkHidden("broken")
}

// realReport is deploysim --real --json: every seed's run and the verdict over them.
type realReport struct {
	Kind    string             `json:"kind"`
	Verdict realfleet.Verdict  `json:"verdict"`
	Runs    []realfleet.Result `json:"runs"`
}

// runReal runs one real fleet per seed, one after the other, and prints each.
func runReal(cmd *cobra.Command, r realFlags, workers int, seeds []int64, asJSON bool, junitFile string) error {
	if r.dsn == "" {
		r.dsn = os.Getenv(storespg.DSNEnv)
	}
	if r.dsn == "" {
		return cliverb.BadInput("deploysim --real: --dsn (or $%s) is required", storespg.DSNEnv)
	}
	if r.orders < 2 {
		return cliverb.BadInput("deploysim --real: --executions %d: want at least 2", r.orders)
	}
	if err := positiveDuration("--deadline", r.deadline); err != nil {
		return cliverb.BadInput("deploysim --real: %v", err)
	}
	if r.broken != "" {
		if _, err := realfleet.LookupBroken(r.broken); err != nil {
			return cliverb.BadInput("deploysim --real: --broken: %v", err)
		}
	}
	bin, err := os.Executable()
	if err != nil {
		return cliverb.BadInput("deploysim --real: %v", err)
	}
	// A worker answers no one, so its start-up is the binary's, timed once in this run (I-PERF-12),
	// after a fleet ran: the binary has then started workers, so it is the command line.
	var startOne time.Duration
	timeStart := func() {
		if startOne > 0 {
			return
		}
		t0 := time.Now()
		if err := exec.CommandContext(cmd.Context(), bin, "version").Run(); err == nil {
			startOne = time.Since(t0)
		}
	}
	rep := realReport{Kind: "deploysim-real", Verdict: realfleet.Pass, Runs: []realfleet.Result{}}
	outs := []outfile.Output{{Flag: "--junit", Path: junitFile, Write: func(w io.Writer) error { return junit.Write(w, realJUnit(rep)) }}}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, seed := range seeds {
		if ctx.Err() != nil {
			break
		}
		res, err := realfleet.Run(ctx, realfleet.Config{DSN: r.dsn, Binary: bin, Workers: workers, Seed: seed,
			Orders: r.orders / 2, Batches: r.orders - r.orders/2, NoFaults: r.noFaults, Deadline: r.deadline, Broken: r.broken})
		if err != nil {
			return cliverb.BadInput("deploysim --real: seed %d: %v", seed, err)
		}
		rep.Runs = append(rep.Runs, res)
		if res.Started > 0 {
			timeStart()
		}
		switch res.Verdict() {
		case realfleet.Fail:
			rep.Verdict = realfleet.Fail
		case realfleet.Unknown:
			if rep.Verdict == realfleet.Pass {
				rep.Verdict = realfleet.Unknown
			}
		}
		if !asJSON {
			printReal(cmd, res, startOne)
		}
	}
	if asJSON {
		b, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintln(cmd.OutOrStdout(), string(b))
	}
	if err := writeOutputs(cmd, outs); err != nil {
		return fmt.Errorf("deploysim --real: %w", err)
	}
	violations := 0
	var unsettled []string
	for _, res := range rep.Runs {
		violations += len(res.Violations)
		if res.Unsettled != nil {
			unsettled = append(unsettled, fmt.Sprintf("seed %d %s", res.Seed, res.Unsettled))
		}
	}
	switch {
	case violations > 0:
		return cliverb.Verdict("deploysim --real: %d invariant violation(s)", violations)
	case len(unsettled) > 0:
		return cliverb.Verdict("deploysim --real: not judged: %s (--deadline gives a fleet longer)", strings.Join(unsettled, "; "))
	case len(rep.Runs) < len(seeds):
		return cliverb.Verdict("deploysim --real: interrupted after %d of %d seed(s)", len(rep.Runs), len(seeds))
	}
	return nil
}

// printReal prints one run: the summary, each violation, the unsettled verdict, what each
// invariant judged, what it could not judge, and the reproduce line.
func printReal(cmd *cobra.Command, res realfleet.Result, startOne time.Duration) {
	out := cmd.OutOrStdout()
	for _, v := range res.Violations {
		fmt.Fprintln(cmd.ErrOrStderr(), v.Error())
	}
	fmt.Fprintf(out, "real fleet: %d workers, seed %d: %d executions (%d judged), %d events in %s (%.1f executions/s), %d SIGKILL, %d SIGSTOP, %d violations\n",
		res.Workers, res.Seed, res.Executions, res.Judged, res.Events, res.Elapsed.Round(time.Millisecond), res.ExecutionsPerS, res.Crashes, res.Pauses, len(res.Violations))
	if u := res.Unsettled; u != nil {
		fmt.Fprintf(out, "  UNKNOWN: %s (first: %s)\n", u, strings.Join(u.First, ", "))
	}
	if res.Exits > 0 {
		fmt.Fprintf(out, "  %d worker(s) exited on their own and were restarted\n", res.Exits)
	}
	for _, iv := range res.Invariants {
		note := ""
		if iv.Note != "" {
			note = ": " + iv.Note
		}
		fmt.Fprintf(out, "  ran %-20s on %d%s\n", iv.ID, iv.Judged, note)
	}
	for _, nj := range res.NotJudged {
		fmt.Fprintf(out, "  not judged %s %s: %s\n", nj.Invariant, nj.Execution, nj.Why)
	}
	fmt.Fprintf(out, "  %s\n", overheadLine("worker(s)", res.Started, time.Duration(res.Started)*startOne, res.Elapsed))
	fmt.Fprintf(out, "  reproduce: %s\n", res.Repro)
}

// realJUnit is one case per seed: a failure for a violation, an error for a fleet that did not
// settle (not judged is not passed).
func realJUnit(rep realReport) junit.Suites {
	s := junit.Suite{Name: "deploysim/real"}
	for _, res := range rep.Runs {
		c := junit.Case{Name: fmt.Sprintf("seed-%d", res.Seed), ClassName: "deploysim.real", Time: secs(res.Elapsed)}
		switch res.Verdict() {
		case realfleet.Fail:
			var msgs []string
			for _, v := range res.Violations {
				msgs = append(msgs, v.Error())
			}
			c.Failure = &junit.Message{Message: fmt.Sprintf("%d invariant violation(s); reproduce: %s", len(res.Violations), res.Repro), Body: strings.Join(msgs, "\n")}
		case realfleet.Unknown:
			c.Error = &junit.Message{Message: res.Unsettled.String() + "; reproduce: " + res.Repro}
		}
		s.Add(c)
	}
	return junit.Suites{Name: "deploysim", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Suites: []junit.Suite{s}}
}
