package main

import (
	"context"
	"io"
	"os"

	"github.com/loom-kernel/loom-conform/internal/redact"
	"github.com/loom-kernel/loom-conform/internal/safehttp"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/spf13/cobra"
)

// newRootCmd builds the command tree. Each verb lives in its own file.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "loom-conform",
		Short: "Executable conformance checks for the Loom durable-execution kernel specification",
		Long: `loom-conform turns the Loom kernel specification into executable checks: the kernel
manifest and compatibility gate, the clause registry and its coverage, a reference fold and
kernel, conformance kits that certify the seven storage seams (event, snapshot, archive and branch
stores; content, durable-state and read-model stores) and the ExecutionDispatcher in any language
through the store bridge, kernels over the wire ABI (certify kernel), language-neutral fold
vectors and differential fold fuzzing, golden logs, deploy simulation, fitness gates and badges.
Reports: text, JSON, JUnit, one HTML page, SVG badges, and report matrix to put implementations
side by side. The short names the help cites (spec §N, ADR 0026, I-…) are in docs/glossary.md.

Exit codes: 0 success, 1 a negative verdict (incompatible, a failed check), 2 bad input or usage;
certify adds 3 target failed, 4 certified with waivers, 5 partial run, 6 held to an older SPI
version (see certify --help); vectors fuzz adds 3 when the fold under test failed.

Shell completion (kinds, --builtin, --backend, --profile, --spi, --accept):
  source <(loom-conform completion bash)      # or zsh, fish, powershell`,
		Version:       toolVersion,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate(versionLine() + "\n")
	for _, c := range []*cobra.Command{
		newVersionCmd(),
		newManifestCmd(),
		newCompatCmd(),
		newSpecCmd(),
		newFoldCmd(),
		newDigestCmd(),
		newVectorsCmd(),
		newCertifyCmd(),
		newServeStoreCmd(),
		newServeKernelCmd(),
		newReplayCmd(),
		newGoldensCmd(),
		newVerifyCmd(),
		newDeploysimCmd(),
		newWorkerCmd(),
		newFitnessCmd(),
		newBadgesCmd(),
		newReportCmd(),
	} {
		root.AddCommand(c)
	}
	return root
}

// run executes the CLI with the given arguments and streams and returns the exit code. Nothing a
// verb prints carries a secret: stdout, stderr and the final error pass through a scrubber that
// knows every connection string and bearer token the run was given (flags, environment, files;
// see secretsOf).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	sec := redact.New(os.Getenv(storespg.DSNEnv))
	sec.AddSecret(os.Getenv(safehttp.TokenEnv))
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		for _, name := range []string{"dsn", "token"} {
			if f := cmd.Flags().Lookup(name); f != nil && f.Value.String() != "" {
				if name == "dsn" {
					sec.AddDSN(f.Value.String())
				} else {
					sec.AddSecret(f.Value.String())
				}
			}
		}
	}
	stdout, stderr = sec.Writer(stdout), sec.Writer(stderr)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return exitCode(root.ExecuteContext(context.WithValue(context.Background(), secretsKey{}, sec)), stderr)
}

type secretsKey struct{}

// secretsOf is the run's scrubber: a verb that learns a secret the flags did not carry (a DSN read
// from a file) adds it, and a verb that writes a file scrubs what it writes (certify's reports).
func secretsOf(cmd *cobra.Command) *redact.Scrubber {
	s, _ := cmd.Context().Value(secretsKey{}).(*redact.Scrubber)
	return s
}
