package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/internal/safehttp"
	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/spf13/cobra"
)

type certifyFlags struct {
	builtin, dsn, schema, url, execCmd, image, port string
	token                                           string
	run, ledger                                     string
	spi                                             []string
	timeout, startTimeout                           time.Duration
	seed                                            int64
	faults, strict                                  bool
	report, junit, html, badge                      string
	accept                                          []string
	writeLedger                                     string
	shard                                           string
	explore                                         int
	findings, replay                                string
}

func newCertifyCmd() *cobra.Command {
	var f certifyFlags
	cmd := &cobra.Command{
		Use:   "certify eventstore|snapshotstore|archivestore|branchregistry|contentstore|durablestatestore|readmodelstore|all|dispatcher|kernel TARGET",
		Short: "Certify a store against the SPI conformance kits through the store bridge",
		Long: `certify runs the bridge protocol checks and the SPI conformance kits against a store reached
through the store bridge (docs/bridge.md) and prints a certificate. "all" certifies every seam the
bridge serves of the seven (eventstore, snapshotstore, archivestore, branchregistry and the
plugin-tier contentstore, durablestatestore, readmodelstore); "dispatcher" certifies an
ExecutionDispatcher served by the same bridge protocol (dispatcher.* methods, docs/spi.md §8; the
memory and postgres builtins serve one). TARGET is exactly one of:

  --builtin memory|sqlite|postgres   one of the reference stores, served in process (or
                                     broken:NAME, one of the broken stores listed below)
  --dsn DSN                          the PostgreSQL reference store on that database
  --url URL                          a bridge that is already running
  --exec 'CMD ARGS'                  a bridge subprocess (no shell); its first stdout line is its address
  --image IMG                        a bridge image, started on the Docker engine and always removed

certify kernel holds a kernel that speaks the wire kernel ABI (docs/wire.md) to the reference
kernel, one check per obligation (docs/wire.md, "What certify kernel checks"): the handshake and
derived method table, each syscall's arguments and refusals, the rings, the driver contract
(start, attach, re-drive, complete, cancel), fencing of every driver method, the ingress gate, the
code of each refusal, reconnect, read-only replay, terminal executions, the streaming form, the
conformance profile's per-execution state, Wave 2 when the handshake advertises it, and every
flow script and golden the wire can drive (kernel/golden/NAME, each with its own time limit).
TARGET is --url URL or --exec 'CMD ARGS' (e.g. --exec 'loom-conform serve-kernel'); the kernel
must be served with the conformance profile. Before the checks it measures the kernel's round
trip against the reference kernel's and says so when it is far slower. --run, --shard,
--expected-failures and --write-ledger work as for stores.

Progress goes to stderr check by check, then a summary table; the certificate goes to stdout.
--html writes one self-contained page for the reader of a red run: the verdict, the failures and
unknowns first (grouped when several share one cause, clauses linked to their text, diffs,
reproduce commands), a filterable table of every check, the clause coverage. "report matrix" puts
several implementations' --report files side by side. In CI, the repository's GitHub Action
(action.yml, see README) runs all of this for you.

Checks are required or recommended (docs/interpretations.md gives each interpretation's tier): a
MUST check is required when it enforces a spec or ADR clause or an interpretation of tier
protocol or consequence; a check that enforces only our own choices where the spec is silent
(tier choice), and every SHOULD check, is recommended. Only required checks decide the verdict; the recommendations not met are counted
and listed on every surface ("CERTIFIED: EventStore SPI 2.6.0 — 2 recommendations not met").
--strict holds the target to the recommendations too: an unmet one then blocks (exit 1).

The run has exactly one verdict; the certificate, the JSON "verdict", the JUnit file, the HTML
page and the badge all say it, and the exit code is its own:

  0  certified               every required check of every served seam ran and passed, full
                             run, current SPI version, no waiver
  1  not-certified           a required check failed or has no verdict (under --strict: any
                             check), the ledger is untrue, or a served seam judged nothing
  2  bad input               flags, ledger, an SPI version this harness does not know
  3  target-failed           the target never started, or did not answer the handshake of
                             the kind asked for (one error says what it answered and the
                             likely mistake), or went away mid-run
  4  certified-with-waivers  as certified, but the ledger excused N failures that would block
  5  partial                 --run selected a subset: never a certificate
  6  held-to-older-version   a seam was held to an older SPI version (--spi or its claim)

--accept VERDICT (repeatable) makes 4, 5 or 6 exit 0 for a caller that opts in, e.g. a CI job
that keeps a ledger: --accept certified-with-waivers. The verdict itself never changes.

--shard i/n runs only the checks whose id falls in shard i of n (a stable partition by check id)
so a CI matrix can split a long run; it needs --seed, the same for every shard. A shard is never a
certificate: its verdict is partial at best (exit 5; --accept partial in the matrix) and its badge
says "shard i/n of a run". "report merge" joins the --report files of all n shards and concludes
the union as one run would: that merged report carries the run's verdict.

--builtin broken:NAME (and serve-store --broken NAME) serves the memory stores with one seam
replaced by a deliberately broken store, one defect each, which the check meant for it rejects:
what a failure looks like before your own store has one. A NAME several seams share is
KIND/NAME:

` + certify.BrokenStoreList(100),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cliverb.BadInput("certify: name one kind: %s, all, %s or %s (got %d arguments)", strings.Join(certify.Kinds(), ", "), certify.KindDispatcher, certify.KernelKind, len(args))
			}
			return nil
		},
		ValidArgs: append(certify.Kinds(), "all", certify.KindDispatcher, certify.KernelKind),
		RunE:      func(cmd *cobra.Command, args []string) error { return runCertify(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.builtin, "builtin", "", "certify a reference store: memory, sqlite or postgres (postgres needs --dsn), or broken:NAME, a broken store (listed above)")
	fl.StringVar(&f.dsn, "dsn", "", "certify the PostgreSQL reference store on this database")
	fl.StringVar(&f.schema, "schema", "", "PostgreSQL schema the --dsn store uses (default: a temporary schema, dropped after the run)")
	fl.StringVar(&f.url, "url", "", "certify the bridge answering at this URL")
	fl.StringVar(&f.token, "token", "", "bearer token to send with every call (default $"+safehttp.TokenEnv+"; a bridge or kernel served beyond loopback requires one; an --image gets a fresh one of its own)")
	fl.StringVar(&f.execCmd, "exec", "", "start this bridge command (split into words, no shell)")
	fl.StringVar(&f.image, "image", "", "start this bridge image on the Docker engine (DOCKER_HOST, the docker context or the default socket)")
	fl.StringVar(&f.port, "port", certify.DefaultBridgePort, "container port the --image bridge listens on")
	fl.StringVar(&f.run, "run", "", "run only checks whose id matches this regular expression")
	fl.StringArrayVar(&f.spi, "spi", nil, "SPI version to hold the store to: VERSION (one kind) or SEAM=VERSION (repeatable)")
	fl.StringVar(&f.ledger, "expected-failures", "", `JSON ledger of known failures: {"expectedFailures":[{"check","reason","expires"?}]}`)
	fl.DurationVar(&f.timeout, "timeout", kits.DefaultTimeout, "timeout of each check")
	fl.DurationVar(&f.startTimeout, "start-timeout", time.Minute, "timeout for the target to start and answer the handshake")
	fl.Int64Var(&f.seed, "seed", 0, "seed of randomised checks (0 = from the clock; printed in the report)")
	fl.IntVar(&f.explore, "explore", 0, "scripts each exploration check (*/explore) applies to the target and the reference: 0 = its default (stores 40, kernel 12); more for a longer campaign")
	fl.BoolVar(&f.faults, "faults", false, "add the fault checks: cut connections and pause the store mid-workload")
	fl.BoolVar(&f.strict, "strict", false, "hold the target to the recommended checks too: an unmet recommendation blocks the certificate")
	fl.StringVar(&f.report, "report", "", "write the JSON report to this file")
	fl.StringVar(&f.junit, "junit", "", "write JUnit XML to this file")
	fl.StringVar(&f.html, "html", "", "write a self-contained HTML report to this file")
	fl.StringVar(&f.badge, "badge", "", "write an SVG badge to this file")
	fl.StringSliceVar(&f.accept, "accept", nil, "exit 0 for this qualified verdict too: certified-with-waivers, partial or held-to-older-version (repeatable)")
	fl.StringVar(&f.shard, "shard", "", "run only shard i/n of the checks (a stable partition by id; needs --seed); merge the --report files with report merge")
	fl.StringVar(&f.findings, "findings", "", "write each exploration's finding to this directory as a replayable script, <check>-<seed>-<round>.json")
	fl.StringVar(&f.replay, "replay", "", "run only the exploration check that made this findings file, on its script as it is: the same failure, or \"no longer reproduces\"")
	fl.StringVar(&f.writeLedger, "write-ledger", "", "write a ledger listing every check that failed to this file (- = stdout), to start one: edit each reason")
	_ = cmd.RegisterFlagCompletionFunc("builtin", cliverb.FixedCompletion(certify.Backends()...))
	_ = cmd.RegisterFlagCompletionFunc("accept", cliverb.FixedCompletion(string(certify.CertifiedWithWaivers), string(certify.Partial), string(certify.HeldToOlder)))
	_ = cmd.RegisterFlagCompletionFunc("spi", spiCompletion)
	_ = cmd.MarkFlagDirname("findings")
	for _, name := range []string{"report", "junit", "html", "badge", "write-ledger", "expected-failures", "replay"} {
		_ = cmd.MarkFlagFilename(name)
	}
	return cmd
}

func runCertify(cmd *cobra.Command, kind string, f certifyFlags) error {
	if err := needs(cmd, map[string]string{"schema": "dsn", "port": "image"}); err != nil {
		return err
	}
	isKernel := kind == certify.KernelKind
	var kinds []string
	var spis map[string]string
	var err error
	if isKernel {
		if f.builtin != "" || f.dsn != "" || f.image != "" || f.faults || len(f.spi) > 0 {
			return cliverb.BadInput("certify kernel: takes --url URL or --exec 'CMD ARGS' (not --builtin, --dsn, --image, --faults or --spi)")
		}
		kinds = []string{kind}
	} else if kinds, err = certify.ParseKind(kind); err != nil {
		return cliverb.BadInput("certify: %v", err)
	}
	target, err := certifyTarget(f)
	if err != nil {
		return cliverb.BadInput("certify: %v", err)
	}
	if !isKernel {
		if spis, err = parseSpiFlags(f.spi, kinds); err != nil {
			return cliverb.BadInput("certify: %v", err)
		}
	}
	accept := map[certify.Verdict]bool{}
	for _, a := range f.accept {
		v, err := certify.ParseVerdict(a)
		if err != nil {
			return cliverb.BadInput("certify: --accept: %v", err)
		}
		if !v.Acceptable() {
			return cliverb.BadInput("certify: --accept %s: only certified-with-waivers, partial and held-to-older-version may be accepted", a)
		}
		accept[v] = true
	}
	if err := positiveDuration("--timeout", f.timeout); err != nil {
		return cliverb.BadInput("certify: %v", err)
	}
	if err := positiveDuration("--start-timeout", f.startTimeout); err != nil {
		return cliverb.BadInput("certify: %v", err)
	}
	var rep *certify.Report
	report := func(w func(io.Writer, *certify.Report) error) func(io.Writer) error {
		return func(out io.Writer) error { return w(out, rep) }
	}
	outs := []outfile.Output{{Flag: "--report", Path: f.report, Write: report(certify.WriteJSON)}, {Flag: "--junit", Path: f.junit, Write: report(certify.WriteJUnit)},
		{Flag: "--html", Path: f.html, Write: report(certify.WriteHTML)}, {Flag: "--badge", Path: f.badge, Write: report(certify.WriteBadge)},
		{Flag: "--write-ledger", Path: f.writeLedger, Write: func(w io.Writer) error { return certify.WriteLedger(w, rep, time.Now()) }}}
	if err := checkOutputs(outs); err != nil {
		return cliverb.BadInput("certify: %v", err)
	}
	certOut := cmd.OutOrStdout()
	if outfile.ToStdout(outs) {
		certOut = cmd.ErrOrStderr()
	}
	sh, err := shard.Parse(f.shard)
	if err != nil {
		return cliverb.BadInput("certify: --shard: %v", err)
	}
	if !sh.All() && f.seed == 0 {
		return cliverb.BadInput("certify: --shard %s needs --seed: every shard of one run must use the same seed", sh)
	}
	if f.token == "" {
		f.token = os.Getenv(safehttp.TokenEnv)
	}
	if f.explore < 0 {
		return cliverb.BadInput("certify: --explore %d: want a number of scripts (0 = each check's default)", f.explore)
	}
	var replay *explore.Script
	if f.replay != "" {
		data, err := os.ReadFile(f.replay)
		if err != nil {
			return cliverb.BadInput("certify: --replay: %v", err)
		}
		s, err := explore.ParseScript(data)
		if err != nil {
			return cliverb.BadInput("certify: --replay %s: %v", f.replay, err)
		}
		if f.run != "" {
			if re, err := regexp.Compile(f.run); err != nil || !re.MatchString(s.Check) {
				return cliverb.BadInput("certify: --replay runs the check that made the script (%s), which --run %q does not select", s.Check, f.run)
			}
		}
		replay, f.run = &s, "^"+regexp.QuoteMeta(s.Check)+"$"
	}
	if f.findings != "" {
		if err := os.MkdirAll(f.findings, 0o755); err != nil {
			return cliverb.BadInput("certify: --findings: %v", err)
		}
	}
	cfg := certify.Config{Shard: sh, Kinds: kinds, Run: f.run, SpiVersions: spis, Timeout: f.timeout, Seed: f.seed,
		Faults: f.faults, Strict: f.strict, StartTimeout: f.startTimeout, Progress: cmd.ErrOrStderr(), ToolVersion: toolVersion,
		Command: invokedAs(os.Args[0]), Token: f.token, Explore: f.explore, Findings: f.findings, Replay: replay}
	if f.ledger != "" {
		if cfg.Ledger, err = certify.ReadLedger(f.ledger); err != nil {
			return cliverb.BadInput("certify: --expected-failures: %v", err)
		}
	}
	// A closed pipe on stdout or stderr must not kill the run before it removes its container.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	fmt.Fprintf(cmd.ErrOrStderr(), "certify %s: %s\n", kind, target.Describe())
	if isKernel {
		rep, err = certify.RunKernel(ctx, target, cfg)
	} else {
		rep, err = certify.Run(ctx, target, cfg)
	}
	if err != nil {
		return cliverb.BadInput("certify: %v", err)
	}
	// Every file and line below is written from the report: no password or token of this run in
	// any of them (the driver's own messages may quote a connection string).
	secretsOf(cmd).Walk(rep)
	if rep.Verdict != certify.TargetFailed { // nothing ran: the one error at the end says why
		fmt.Fprintln(cmd.ErrOrStderr())
		if err := certify.WriteSummary(cmd.ErrOrStderr(), rep); err != nil {
			return err
		}
		if err := certify.WriteCauses(cmd.ErrOrStderr(), rep); err != nil {
			return err
		}
		fmt.Fprintln(cmd.ErrOrStderr())
		if err := certify.WriteSlowest(cmd.ErrOrStderr(), rep); err != nil {
			return err
		}
		fmt.Fprintln(cmd.ErrOrStderr())
	}
	if err := writeOutputs(cmd, outs); err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	if err := certify.WriteCertificate(certOut, rep); err != nil {
		return err
	}
	if replay != nil {
		writeReplayed(cmd.ErrOrStderr(), f.replay, replay, rep)
	}
	return certifyExit(kind, rep, accept)
}

// certifyExit maps the run's verdict to its exit code (certify.Verdict.ExitCode), or 0 for a
// qualified verdict the caller accepted with --accept.
func certifyExit(kind string, rep *certify.Report, accept map[certify.Verdict]bool) error {
	v := rep.Verdict
	switch {
	case v == certify.Certified || accept[v]:
		return nil
	case v == certify.TargetFailed:
		return &cliverb.ExitError{Code: v.ExitCode(), Err: fmt.Errorf("certify %s: target failed: %s", kind, rep.TargetError)}
	case v == certify.NotCertified:
		return &cliverb.ExitError{Code: v.ExitCode(), Err: fmt.Errorf("certify %s: not certified (%d blocking check(s), %d problem(s))", kind, rep.Summary.Blocking, len(rep.Problems))}
	}
	return &cliverb.ExitError{Code: v.ExitCode(), Err: fmt.Errorf("certify %s: verdict %s, not a certificate (exit %d; --accept %s makes it exit 0)", kind, v, v.ExitCode(), v)}
}

// certifyTarget picks the one target the flags name.
func certifyTarget(f certifyFlags) (certify.Target, error) {
	var picked []string
	for _, o := range []struct{ name, v string }{{"--builtin", f.builtin}, {"--url", f.url}, {"--exec", f.execCmd}, {"--image", f.image}} {
		if o.v != "" {
			picked = append(picked, o.name)
		}
	}
	if f.dsn != "" && f.builtin != "postgres" {
		picked = append(picked, "--dsn")
	}
	switch {
	case len(picked) == 0:
		return nil, fmt.Errorf("name a target: one of --builtin %s, --dsn DSN, --url URL, --exec 'CMD ARGS' or --image IMG",
			strings.Join(certify.Backends(), "|"))
	case len(picked) > 1:
		return nil, fmt.Errorf("name exactly one target (--builtin, --dsn, --url, --exec or --image), not %d: %s", len(picked), strings.Join(picked, " "))
	}
	switch {
	case f.builtin != "":
		if f.builtin == "postgres" && f.dsn == "" {
			return nil, fmt.Errorf("--builtin postgres needs --dsn")
		}
		ok := false
		for _, b := range certify.Backends() {
			ok = ok || b == f.builtin
		}
		if name, broken := strings.CutPrefix(f.builtin, "broken:"); broken {
			if _, err := certify.LookupBrokenStore(name); err != nil {
				return nil, fmt.Errorf("--builtin %s: %v", f.builtin, err)
			}
		} else if !ok {
			return nil, fmt.Errorf("--builtin %q: want one of %s, or broken:NAME (certify --help lists the broken stores)", f.builtin, strings.Join(certify.Backends(), ", "))
		}
		return certify.BuiltinTarget{Backend: certify.Backend{Name: f.builtin, DSN: f.dsn, Schema: f.schema, Version: toolVersion}}, nil
	case f.dsn != "":
		return certify.BuiltinTarget{Backend: certify.Backend{Name: "postgres", DSN: f.dsn, Schema: f.schema, Version: toolVersion}}, nil
	case f.url != "":
		if !strings.HasPrefix(f.url, "http://") && !strings.HasPrefix(f.url, "https://") {
			return nil, fmt.Errorf("--url %q: want http://HOST:PORT[/PATH]", f.url)
		}
		return certify.URLTarget{URL: f.url}, nil
	case f.execCmd != "":
		if _, err := certify.SplitCommand(f.execCmd); err != nil {
			return nil, fmt.Errorf("--exec %q: %v", f.execCmd, err)
		}
		return certify.ExecTarget{Command: f.execCmd}, nil
	}
	return certify.ImageTarget{Image: f.image, Port: f.port}, nil
}

// parseSpiFlags reads --spi VERSION (one kind) and --spi SEAM=VERSION.
func parseSpiFlags(vals []string, kinds []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range vals {
		seam, ver, ok := strings.Cut(v, "=")
		if !ok {
			if len(kinds) != 1 {
				return nil, fmt.Errorf("--spi %s: with several kinds write SEAM=VERSION (e.g. eventstore=2.3.0)", v)
			}
			seam, ver = kinds[0], v
		}
		found := ""
		for _, k := range certify.Kinds() {
			if strings.EqualFold(seam, k) {
				found = seamName(k)
			}
		}
		if found == "" {
			return nil, fmt.Errorf("--spi %s: unknown seam %q (want %s)", v, seam, strings.Join(certify.Kinds(), ", "))
		}
		certified := false
		for _, k := range kinds {
			certified = certified || seamName(k) == found
		}
		if !certified {
			return nil, fmt.Errorf("--spi %s: %s is not among the kinds this run certifies (%s)", v, found, strings.Join(kinds, ", "))
		}
		if err := certify.CheckSpiVersion(found, ver); err != nil {
			return nil, fmt.Errorf("--spi %s: %v", v, err)
		}
		out[found] = ver
	}
	return out, nil
}

func seamName(kind string) string {
	for _, s := range manifest.Spis() {
		if strings.EqualFold(s.Name, kind) {
			return s.Name
		}
	}
	return ""
}
