package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/redact"
	"github.com/spf13/cobra"
)

// verb is one top-level command: the names it answers to (its own and its aliases) and how to
// build it.
type verb struct {
	names []string
	build func() *cobra.Command
}

// verbs lists the top-level commands in the order help shows them. Each verb lives in its own
// file; TestVerbNames holds each entry's names to the command it builds.
func verbs() []verb {
	return []verb{
		{[]string{"version"}, func() *cobra.Command { return cliverb.NewVersionCmd(toolVersion) }},
		{[]string{"manifest", "kernel-manifest"}, newManifestCmd},
		{[]string{"compat"}, newCompatCmd},
		{[]string{"spec"}, newSpecCmd},
		{[]string{"fold"}, cliverb.NewFoldCmd},
		{[]string{"digest"}, cliverb.NewDigestCmd},
		{[]string{"vectors"}, newVectorsCmd},
		{[]string{"certify"}, newCertifyCmd},
		{[]string{"serve-store"}, newServeStoreCmd},
		{[]string{"serve-kernel"}, newServeKernelCmd},
		{[]string{"replay"}, newReplayCmd},
		{[]string{"goldens"}, newGoldensCmd},
		{[]string{"verify"}, newVerifyCmd},
		{[]string{"deploysim"}, newDeploysimCmd},
		{[]string{"worker"}, newWorkerCmd},
		{[]string{"fitness"}, newFitnessCmd},
		{[]string{"badges"}, newBadgesCmd},
		{[]string{"report"}, newReportCmd},
	}
}

// newRootCmd builds the whole command tree.
func newRootCmd() *cobra.Command {
	return newRootCmdFor(nil)
}

// newRootCmdFor builds the tree a run with args needs: when the first argument names a verb,
// the root and that verb alone (a command builds none of the others' flags, completions and
// help); otherwise (help, completion, a flag first, a misspelt verb) every verb (I-PERF-10).
func newRootCmdFor(args []string) *cobra.Command {
	root := cliverb.NewRoot(toolVersion)
	all := verbs()
	if len(args) > 0 {
		for _, v := range all {
			if slices.Contains(v.names, args[0]) {
				root.AddCommand(v.build())
				return root
			}
		}
	}
	for _, v := range all {
		root.AddCommand(v.build())
	}
	return root
}

// run executes the CLI with the given arguments and streams and returns the exit code. Nothing a
// verb prints carries a secret: stdout, stderr and the final error pass through a scrubber that
// knows every connection string and bearer token the run was given (flags, environment, files;
// see secretsOf).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmdFor(args)
	sec := environSecrets(os.Environ())
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		flagSecrets(cmd, sec)
	}
	stdout, stderr = sec.Writer(stdout), sec.Writer(stderr)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return cliverb.ExitCode(root.ExecuteContext(context.WithValue(context.Background(), secretsKey{}, sec)), stderr)
}

// environSecrets is a scrubber of the secrets the environment gives a run: every LOOM_*_TOKEN
// (LOOM_CONFORM_TOKEN among them), every LOOM_*_DSN (LOOM_CONFORM_POSTGRES_DSN) and
// LOOM_CONFORM_URL (the --url a reproduce line names when the URL holds userinfo).
func environSecrets(environ []string) *redact.Scrubber {
	sec := redact.New()
	for _, kv := range environ {
		name, v, _ := strings.Cut(kv, "=")
		switch {
		case v == "" || !strings.HasPrefix(name, "LOOM_"):
		case strings.HasSuffix(name, "_TOKEN"):
			sec.AddSecret(v)
		case strings.HasSuffix(name, "_DSN"):
			sec.AddDSN(v)
		case name == certify.URLEnv:
			sec.AddURL(v)
		}
	}
	return sec
}

// flagSecrets adds the secrets a verb's flags carry: --dsn, --token, the userinfo of --url, and
// any connection string or URL with userinfo in an --exec command line (a warning then says so:
// the command's own argv shows it to every user of the host, and every output masks it).
func flagSecrets(cmd *cobra.Command, sec *redact.Scrubber) {
	value := func(name string) string {
		if f := cmd.Flags().Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	sec.AddDSN(value("dsn"))
	sec.AddSecret(value("token"))
	sec.AddURL(value("url"))
	if sec.AddText(value("exec")) {
		fmt.Fprintln(cmd.ErrOrStderr(), "loom-conform: warning: --exec holds a password or token: every output masks it (a reproduce line shows it masked), and the command line is visible to every user of this host; give it to the command through its environment instead, which it inherits")
	}
}

type secretsKey struct{}

// secretsOf is the run's scrubber: a verb that learns a secret the flags did not carry (a DSN read
// from a file) adds it, and a verb that writes a file scrubs what it writes (certify's reports).
func secretsOf(cmd *cobra.Command) *redact.Scrubber {
	s, _ := cmd.Context().Value(secretsKey{}).(*redact.Scrubber)
	return s
}
