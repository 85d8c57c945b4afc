package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/spf13/cobra"
)

// runCertifyKernel is `certify kernel --url URL | --exec CMD`: the kernel kit over the wire ABI,
// with the same reports as a store certification.
func runCertifyKernel(cmd *cobra.Command, f certifyFlags) error {
	if f.builtin != "" || f.dsn != "" || f.image != "" || f.faults || len(f.spi) > 0 {
		return badInput("certify kernel: takes --url URL or --exec 'CMD ARGS' (not --builtin, --dsn, --image, --faults or --spi)")
	}
	target, err := certifyTarget(f)
	if err != nil {
		return badInput("certify kernel: %v", err)
	}
	cfg := certify.Config{Kinds: []string{certify.KernelKind}, Run: f.run, Timeout: f.timeout, Seed: f.seed,
		StartTimeout: f.startTimeout, Progress: cmd.ErrOrStderr(), ToolVersion: toolVersion, Command: "loom-conform"}
	if f.ledger != "" {
		if cfg.Ledger, err = certify.ReadLedger(f.ledger); err != nil {
			return badInput("certify kernel: --expected-failures: %v", err)
		}
	}
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	fmt.Fprintf(cmd.ErrOrStderr(), "certify kernel: %s\n", target.Describe())
	rep, err := certify.RunKernel(ctx, target, cfg)
	if err != nil {
		return badInput("certify kernel: %v", err)
	}
	fmt.Fprintln(cmd.ErrOrStderr())
	if err := certify.WriteSummary(cmd.ErrOrStderr(), rep); err != nil {
		return err
	}
	fmt.Fprintln(cmd.ErrOrStderr())
	for _, out := range []struct {
		path  string
		write func(io.Writer, *certify.Report) error
	}{{f.report, certify.WriteJSON}, {f.junit, certify.WriteJUnit}, {f.html, certify.WriteHTML}, {f.badge, certify.WriteBadge}} {
		if out.path == "" {
			continue
		}
		if err := writeReport(out.path, rep, out.write); err != nil {
			return fmt.Errorf("certify kernel: %w", err)
		}
	}
	if err := certify.WriteCertificate(cmd.OutOrStdout(), rep); err != nil {
		return err
	}
	if !rep.Certified {
		return verdict("certify kernel: not certified (%d blocking check(s), %d problem(s))", rep.Summary.Blocking, len(rep.Problems))
	}
	return nil
}
