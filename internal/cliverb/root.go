package cliverb

import "github.com/spf13/cobra"

// NewRoot is the root command of both binaries, for harness version v, with no verb: the caller
// adds the verbs it serves (loom-conform: version, fold and digest; loom-conform-full: all).
func NewRoot(v string) *cobra.Command {
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
		Version:       v,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate(VersionLine(v) + "\n")
	return root
}
