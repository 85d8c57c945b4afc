package certify

import (
	"github.com/loom-kernel/loom-conform/internal/safetext"
	"sync"

	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loom-kernel/loom-conform/internal/runfilter"
	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/bridgekit"
	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Kinds are the store kits certify runs, in order; "all" selects every one.
func Kinds() []string {
	return []string{"eventstore", "snapshotstore", "archivestore", "branchregistry",
		"contentstore", "durablestatestore", "readmodelstore"}
}

func seamOf(kind string) string {
	switch kind {
	case "eventstore":
		return manifest.SeamEventStore
	case "snapshotstore":
		return manifest.SeamSnapshotStore
	case "archivestore":
		return manifest.SeamArchiveStore
	case "branchregistry":
		return manifest.SeamBranchRegistry
	case KindDispatcher:
		return manifest.SeamExecutionDispatcher
	case "contentstore":
		return manifest.SeamContentStore
	case "durablestatestore":
		return manifest.SeamDurableStateStore
	case "readmodelstore":
		return manifest.SeamReadModelStore
	}
	return ""
}

// KindDispatcher certifies an ExecutionDispatcher (docs/spi.md §8). It is not a store, so "all"
// does not select it.
const KindDispatcher = "dispatcher"

// ParseKind expands a certify kind argument ("eventstore", …, "all").
func ParseKind(arg string) ([]string, error) {
	if arg == "all" {
		return Kinds(), nil
	}
	if arg == KindDispatcher {
		return []string{KindDispatcher}, nil
	}
	for _, k := range Kinds() {
		if k == arg {
			return []string{k}, nil
		}
	}
	return nil, fmt.Errorf("unknown kind %q (want %s, all, %s or %s)", arg, strings.Join(Kinds(), ", "), KindDispatcher, KernelKind)
}

// Config is a certification run. The zero value of every field but Kinds is usable.
type Config struct {
	Kinds []string // from ParseKind
	// Run is a regular expression a check id must match to run (the others are left out).
	Run string
	// SpiVersions holds the SPI version to hold each seam to (by manifest seam name); absent = the
	// current version, or the store's claim if it is older.
	SpiVersions map[string]string
	// Timeout bounds each check (default kits.DefaultTimeout).
	Timeout time.Duration
	// Seed seeds randomised checks (0 = from the clock).
	Seed int64
	// Explore is how many scripts an exploration check (*/explore) runs: 0 = its kit's default
	// (kits.DefaultExplore for stores, kernelkit.DefaultExplore for kernels); more for a longer
	// campaign (--explore).
	Explore int
	// Findings, when set, is the directory each exploration's finding is written to, as a
	// replayable script file <check>-<seed>-<round>.json; the check's repro then replays that file.
	Findings string
	// Replay, when set, runs the exploration check that made the script on that one script, as
	// it is (kits.Options.Replay); Run should select that check only.
	Replay *explore.Script
	// Ledger is the expected-failures ledger (nil = none).
	Ledger *Ledger
	// Strict holds the target to the recommended checks too: an unmet recommendation blocks the
	// certificate like a required failure (DESIGN §7.1).
	Strict bool
	// Faults adds the fault checks (connection cuts, pauses) to the run.
	Faults bool
	// StartTimeout bounds starting the target and its handshake (default 60 s).
	StartTimeout time.Duration
	// Progress receives one line per check as it finishes, with the running counts of pass, fail,
	// skip and unknown (nil = silent).
	Progress io.Writer
	// ToolVersion is reported as the harness version (default manifest.BuildVersion, what the
	// command line reports: a certificate never names a blank harness).
	ToolVersion string
	// Command is how the CLI was invoked up to the kind (default "loom-conform"), for reproducing commands.
	Command string
	// Now is the clock for ledger expiry (default time.Now).
	Now func() time.Time
	// DeadAfter is how many checks in a row may end unknown, although the bridge still answers a
	// probe, before the rest are not run (default 10).
	DeadAfter int
	// OutageWait bounds how long a target that is gone or frozen (its process exited or stopped,
	// its database or container down, its bridge silent) may take to come back before the run
	// ends target-failed (default 30 s). A target that comes back has the interrupted check run
	// again.
	OutageWait time.Duration
	// Shard, when set, runs only the checks whose id falls in it (internal/shard): the report is a
	// part of a run, never a certificate, until MergeReports joins every shard (I-SHARD-2).
	Shard shard.Shard
	// Token is the bearer token sent with every call (certify --token, LOOM_CONFORM_TOKEN): a
	// bridge or kernel served beyond loopback requires one. A target that chose its own
	// (Running.Token) uses that.
	Token string
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = kits.DefaultTimeout
	}
	if c.Seed == 0 {
		c.Seed = time.Now().UnixNano() & 0x7fffffff
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 60 * time.Second
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Command == "" {
		c.Command = "loom-conform"
	}
	if c.ToolVersion == "" {
		c.ToolVersion = manifest.BuildVersion("")
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.DeadAfter <= 0 {
		c.DeadAfter = 10
	}
	if c.OutageWait <= 0 {
		c.OutageWait = 30 * time.Second
	}
	return c
}

// Run certifies target: it starts it, dials its bridge, runs the bridge protocol checks and the
// selected kits check by check (printing progress), applies the ledger and tears the target down.
// The error is for bad configuration only; a target that fails is a report that is not certified.
func Run(ctx context.Context, target Target, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
	for seam, v := range cfg.SpiVersions {
		if err := CheckSpiVersion(seam, v); err != nil {
			return nil, fmt.Errorf("--spi %s=%s: %v", seam, v, err)
		}
	}
	if len(cfg.Kinds) == 0 {
		return nil, errors.New("no kind to certify")
	}
	// Bad input is refused before the target starts (I-CERT-32, I-CERT-33).
	filter, err := runfilter.Compile(cfg.Run)
	if err != nil {
		return nil, err
	}
	ids := runIDs(cfg)
	if err := runfilter.Selects(filter, "check of certify "+strings.Join(cfg.Kinds, ", "), ids); err != nil {
		return nil, err
	}
	if err := cfg.Ledger.Names("check of this harness", knownCheck); err != nil {
		return nil, err
	}
	rep := &Report{
		Tool: Tool{Name: "loom-conform", Version: cfg.ToolVersion},
		Spec: map[string]string{"kernelAbi": manifest.KernelAbiVersion, "eventSchema": manifest.EventSchemaVersion,
			"wireAbi": manifest.WireAbiVersion, "bridgeProtocol": bridge.ProtocolVersion},
		Profiles: map[string]string{ProfileStores: ProfileVersion(ProfileStores)},
		Spi:      map[string]string{},
		Kind:     ReportKind, Shard: cfg.Shard.String(),
		Kinds: cfg.Kinds, Target: target.Describe(), Started: time.Now().UTC(),
		Options: RunOptions{Run: cfg.Run, TimeoutMs: ms(cfg.Timeout), Seed: cfg.Seed, Faults: cfg.Faults, Strict: cfg.Strict},
	}
	for _, seam := range bridge.Seams() {
		s, _ := manifest.LookupSpi(seam)
		rep.Spi[seam] = s.Version
	}
	if cfg.Ledger != nil {
		rep.Options.Ledger = cfg.Ledger.File
	}
	if len(cfg.Kinds) == 1 {
		rep.Options.SpiVersion = cfg.SpiVersions[seamOf(cfg.Kinds[0])]
	}
	start := time.Now()
	defer func() { rep.DurationMs = ms(time.Since(start)) }()

	r := &runner{cfg: cfg, filter: filter, rep: rep, target: target, counts: map[kits.Verdict]int{}}
	r.run(ctx)
	if ctx.Err() != nil {
		rep.Problems = append(rep.Problems, fmt.Sprintf("the run was interrupted (%v); the checks it did not finish are unknown", context.Cause(ctx)))
	}
	r.finish()
	return rep, nil
}

type runner struct {
	cfg     Config
	filter  *regexp.Regexp
	rep     *Report
	target  Target
	running *Running
	client  *bridge.Client
	// dead, once set, is why the remaining checks are not run.
	dead string
	// watch tells verdicts from outages; watch.gone, once set, ended the run.
	watch        outageWatch
	unknownInRow int
	total, done  int
	leftOut      []spec.Level         // levels of the checks --run did not select
	counts       map[kits.Verdict]int // verdicts so far, for the progress lines
}

func (r *runner) run(ctx context.Context) {
	running, err := startTarget(ctx, r.target, r.cfg)
	if running != nil {
		r.running = running
		r.rep.Target = running.Identity
		defer r.stop()
	}
	if err != nil {
		// Nothing can be judged: one clear cause, no check listed (I-CERT-4).
		r.rep.TargetError = fmt.Sprintf("the target did not start: %v", err)
		return
	}
	url := ""
	if running != nil {
		url = running.URL
		if running.Token != "" {
			r.cfg.Token = running.Token
		}
	}
	// First contact (I-CERT-30): a target that does not answer a store bridge's handshake is one
	// clear cause, before any check.
	if _, err := (contact{url: url, token: r.cfg.Token, cfg: r.cfg, flag: r.target.Describe().Flag}).handshake(ctx, storeProtocol); err != nil {
		r.rep.TargetError = err.Error()
		return
	}
	direct := url
	var proxy *faultProxy
	if r.dead == "" && r.cfg.Faults {
		if proxy, err = newFaultProxy(url); err != nil {
			r.rep.Problems = append(r.rep.Problems, fmt.Sprintf("fault proxy: %v", err))
			r.dead = "the fault proxy did not start"
		} else {
			defer proxy.Close()
			url = proxy.URL()
		}
	}
	if r.dead == "" {
		dctx, cancel := context.WithTimeout(ctx, r.cfg.StartTimeout)
		r.client, err = bridge.Dial(dctx, url, bridge.ClientOptions{CallTimeout: 10 * time.Second, Token: r.cfg.Token})
		cancel()
		if err != nil {
			// It answered, but no handshake the protocol allows: nothing can be judged (I-CERT-30).
			r.rep.TargetError = fmt.Sprintf("the target at %s answered %s, but not with a store bridge's handshake: %v (docs/bridge.md)", direct, bridge.MethodHandshake, err)
			return
		}
		hs := r.client.Handshake()
		r.rep.Handshake = &hs
		defer r.client.Close()
		if lat, err := bridgeRoundTrip(ctx, direct, r.cfg.Token); err == nil {
			r.rep.RoundTrip = lat
		}
		contacted(r.cfg, handshakeWords(hs), r.rep.RoundTrip)
	}
	r.watch = outageWatch{cfg: r.cfg, running: r.running}
	if r.client != nil {
		r.watch.probe, r.watch.what = r.probe, "the bridge at "+r.client.URL()
	}
	plans := r.plans(proxy)
	for i := range plans {
		plans[i].checks = inShard(plans[i].checks, r.cfg.Shard)
	}
	for _, p := range plans {
		r.total += len(p.checks)
	}
	for _, p := range plans {
		r.runPlan(ctx, p)
	}
	if r.watch.gone != "" {
		// Whose fault (DESIGN §7.1): an outage is the target's verdict, target-failed, with its
		// one cause; the checks judged before it keep their verdicts, no clause is cited for it.
		r.rep.TargetError = outageError(r.watch.gone, r.done, r.total)
	}
}

func (r *runner) stop() {
	wait := 30 * time.Second
	if r.watch.gone != "" {
		wait = 5 * time.Second // what is gone will not answer a teardown either
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if r.running.Logs != nil {
		r.rep.Logs = r.running.Logs(ctx)
	}
	if err := r.running.Stop(ctx); err != nil {
		r.rep.Problems = append(r.rep.Problems, fmt.Sprintf("tearing the target down: %v", err))
	}
}

// plan is one kit prepared for the run: its checks (after --run) and a function that runs one.
type plan struct {
	kit    string
	seam   string // "" for the bridge and fault kits
	served bool
	checks []checkMeta
	run    func(ctx context.Context, id string, opts kits.Options) ([]kits.Result, error)
	// skip, when set, is why every check of the plan is skipped.
	skip string
}

type checkMeta struct {
	id      string
	clauses []string
	level   spec.Level
}

// metas lists the checks of k that filter selects; the levels of the others go to leftOut.
func metas[T any](k kits.Kit[T], filter *regexp.Regexp, leftOut *[]spec.Level) []checkMeta {
	var out []checkMeta
	for _, ch := range k.Checks {
		if filter == nil || filter.MatchString(ch.ID) {
			out = append(out, checkMeta{ch.ID, ch.Clauses, ch.Level})
		} else {
			*leftOut = append(*leftOut, ch.Level)
		}
	}
	return out
}

// kitPlan fills p with kit k's selected checks and, when the bridge serves the seam, the runner
// that holds target() to them.
func kitPlan[T any](p *plan, r *runner, k kits.Kit[T], target func() T) {
	p.checks = metas(k, r.filter, &r.leftOut)
	if p.served {
		p.run = runner1(k, target())
	}
}

func runner1[T any](k kits.Kit[T], target T) func(ctx context.Context, id string, opts kits.Options) ([]kits.Result, error) {
	return func(ctx context.Context, id string, opts kits.Options) ([]kits.Result, error) {
		opts.Run = "^" + regexp.QuoteMeta(id) + "$"
		return kits.Run(ctx, k, func(context.Context) (T, func(), error) { return target, nil, nil }, opts)
	}
}

func (r *runner) plans(proxy *faultProxy) []plan {
	var out []plan
	bk := bridgekit.Kit()
	bp := plan{kit: bk.Name, served: true, checks: metas(bk, r.filter, &r.leftOut)}
	if r.client != nil {
		bp.run = runner1(bk, r.client)
	}
	out = append(out, bp)
	for _, kind := range r.cfg.Kinds {
		seam := seamOf(kind)
		p := plan{kit: kind, seam: seam}
		served := r.client != nil && r.client.Handshake().Seams[seam].SpiVersion != ""
		p.served = served
		switch kind {
		case "eventstore":
			kitPlan(&p, r, kits.EventStoreKit(), func() spi.EventStore { return r.client.EventStore() })
		case "snapshotstore":
			kitPlan(&p, r, kits.SnapshotStoreKit(), func() spi.SnapshotStore { return r.client.SnapshotStore() })
		case "archivestore":
			kitPlan(&p, r, kits.ArchiveStoreKit(), func() spi.ArchiveStore { return r.client.ArchiveStore() })
		case "branchregistry":
			kitPlan(&p, r, kits.BranchRegistryKit(), func() spi.BranchRegistry { return r.client.BranchRegistry() })
		case KindDispatcher:
			kitPlan(&p, r, kits.ExecutionDispatcherKit(), func() spi.ExecutionDispatcher { return r.client.Dispatcher() })
		case "contentstore":
			kitPlan(&p, r, kits.ContentStoreKit(), func() spi.ContentStore { return r.client.ContentStore() })
		case "durablestatestore":
			kitPlan(&p, r, kits.DurableStateStoreKit(), func() spi.DurableStateStore { return r.client.DurableStateStore() })
		case "readmodelstore":
			kitPlan(&p, r, kits.ReadModelStoreKit(), func() spi.ReadModelStore { return r.client.ReadModelStore() })
		}
		if r.client != nil && !served {
			p.skip = fmt.Sprintf("the bridge does not serve %s (its handshake lists no such seam)", seam)
			if len(r.cfg.Kinds) == 1 {
				r.rep.Problems = append(r.rep.Problems, fmt.Sprintf("certify %s: %s", kind, p.skip))
			}
		}
		out = append(out, p)
	}
	if r.cfg.Faults {
		fk := FaultKit()
		fp := plan{kit: fk.Name, served: true, checks: metas(fk, r.filter, &r.leftOut)}
		if r.client != nil && proxy != nil {
			var pauser Pauser
			if r.running != nil {
				pauser = r.running.Pauser
			}
			fp.run = runner1(fk, &FaultTarget{Client: r.client, Proxy: proxy, Pauser: pauser, Token: r.cfg.Token})
		}
		out = append(out, fp)
	}
	return out
}

func (r *runner) runPlan(ctx context.Context, p plan) {
	for _, m := range p.checks {
		if r.watch.gone != "" {
			return
		}
		res, judged := r.judge(ctx, p, m)
		if !judged {
			return
		}
		r.done++
		r.rep.Checks = append(r.rep.Checks, res)
		r.counts[res.Verdict]++
		fmt.Fprintf(r.cfg.Progress, "%s %-7s %s (%s)%s\n", progressPrefix(r.done, r.total, r.counts), res.Verdict, res.ID,
			time.Duration(res.DurationMs*float64(time.Millisecond)).Round(time.Millisecond), progressNote(res))
	}
}

// progressPrefix is "[ 7/36 p  5 f  1 s  1 u  0]": every number padded to the width of the
// total, so the prefix keeps one width for the whole run.
func progressPrefix(done, total int, counts map[kits.Verdict]int) string {
	w := len(fmt.Sprint(total))
	return fmt.Sprintf("[%*d/%d p%*d f%*d s%*d u%*d]", w, done, total, w, counts[kits.Pass], w, counts[kits.Fail],
		w, counts[kits.Skip], w, counts[kits.Unknown])
}

func progressNote(c CheckResult) string {
	if c.Verdict == kits.Pass {
		return ""
	}
	msg, more := c.Message, ""
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg, more = msg[:i], " …"
	}
	msg = safetext.Line(msg) // a target's words, shown and never obeyed by the terminal
	if len(msg) > 160 {
		// Keep the part that names the field (a schema error's "at '/0/metadata': …", a
		// "params.events[0].metadata: …", an "envelope 3: sequence: …") when the cut drops it.
		head := clipRunes(msg, 100)
		if loc := fieldNamed().FindString(msg[len(head):]); loc != "" {
			return ": " + head + " … " + clipRunes(loc, 100) + more
		}
		return ": " + clipRunes(msg, 160) + "…"
	}
	return ": " + msg + more
}

// fieldNamed finds where a message names the member that was wrong.
var fieldNamed = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`at '/[^']*'[^;]*|\b(?:params|result)(?:\.[A-Za-z_]\w*|\[\d+\])+:[^;]*|envelope \d+: [A-Za-z_]\w*:[^;]*`)
})

// clipRunes cuts s to at most n bytes at a rune boundary.
func clipRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// judge runs one check through the outage rule (outageWatch): a pass, a skip with no link
// failure, and the fault kit's own verdicts stand without a probe.
func (r *runner) judge(ctx context.Context, p plan, m checkMeta) (CheckResult, bool) {
	return r.watch.judge(ctx, m.id, func() (CheckResult, bool) {
		before := r.transportErrors()
		res := r.runCheck(ctx, p, m)
		return res, res.Verdict == kits.Pass || res.Verdict == kits.Skip && r.transportErrors() == before || p.kit == "faults"
	})
}

func (r *runner) transportErrors() int64 {
	if r.client == nil {
		return 0
	}
	return r.client.Stats().TransportErrors
}

func (r *runner) runCheck(ctx context.Context, p plan, m checkMeta) CheckResult {
	res := CheckResult{Kit: p.kit, ID: m.id, Clauses: m.clauses, Level: m.level, Seed: r.cfg.Seed, Repro: r.repro(p, m.id)}
	switch {
	case r.dead != "":
		res.Verdict, res.Message = kits.Unknown, "not run: "+r.dead
		return res
	case p.skip != "":
		res.Verdict, res.Message = kits.Skip, p.skip
		return res
	case p.run == nil:
		res.Verdict, res.Message = kits.Unknown, "not run: no bridge client"
		return res
	}
	opts := kits.Options{Timeout: r.cfg.Timeout, Seed: r.cfg.Seed, Explore: r.cfg.Explore, Findings: r.cfg.Findings}
	if r.cfg.Replay != nil && r.cfg.Replay.Check == m.id {
		opts.Replay = r.cfg.Replay
	}
	if p.seam != "" {
		opts.SpiVersion = r.cfg.SpiVersions[p.seam]
	} else {
		opts.SpiVersion = "1.0.0"
	}
	before := r.client.Stats()
	results, err := p.run(ctx, m.id, opts)
	after := r.client.Stats()
	if err != nil || len(results) != 1 {
		res.Verdict, res.Message = kits.Unknown, fmt.Sprintf("the kit did not run the check: %v", err)
		return res
	}
	kr := results[0]
	res.Verdict, res.Message, res.DurationMs, res.Witness, res.Failed = kr.Verdict, kr.Message, ms(kr.Duration), kr.Witness, kr.Failed
	res.Finding, res.FindingFile = kr.Finding, kr.FindingFile
	if kr.FindingFile != "" && r.target.Describe().Kind != GoKind {
		res.Repro += " --replay " + shq.Quote(kr.FindingFile) // the finding's own script, not the whole search
	}
	transport := after.TransportErrors > before.TransportErrors
	protocol := after.ProtocolErrors > before.ProtocolErrors
	switch {
	case protocol && res.Verdict != kits.Pass:
		// The bridge broke the protocol: that is the bridge's failure, named by its clause.
		res.Verdict = kits.Fail
		res.Clauses = appendClause(res.Clauses, "I-BRIDGE-4")
		res.Failed = []kits.FailedAssertion{kits.NewFailedAssertion(res.Level, "a bridge method", []string{"I-BRIDGE-4"})}
		res.Message = fmt.Sprintf("%s [%s]: Call(a bridge method) = a frame that breaks the protocol (%v), want a bridge protocol answer\n%s",
			m.id, strings.Join(res.Clauses, " "), after.LastFault, res.Message)
	case transport && res.Verdict == kits.Fail && p.kit != "faults":
		// The link failed: no judgement on the store is possible.
		res.Verdict, res.Failed = kits.Unknown, nil
		res.Clauses = appendClause(res.Clauses, "I-BRIDGE-6")
		res.Message = fmt.Sprintf("%s: the link to the bridge failed during the check (%v); no verdict on the store\n%s", m.id, after.LastFault, res.Message)
	}
	if res.Verdict == kits.Unknown && strings.Contains(res.Message, "did not return") {
		// Name the bridge method the check is stuck in (I-CERT-61).
		if pc, ok := r.client.OldestPending(); ok {
			res.Message = fmt.Sprintf("%s: the bridge call %s did not return (sent %s before the check was abandoned)\n%s",
				m.id, pc.Method, time.Since(pc.Sent).Round(time.Millisecond), res.Message)
		}
	}
	// A target that answers probes but leaves check after check without a verdict is slow beyond
	// use: after DeadAfter in a row the rest are not run (judge has already ruled out an outage).
	if res.Verdict == kits.Unknown {
		r.unknownInRow++
		if r.unknownInRow >= r.cfg.DeadAfter {
			r.dead = fmt.Sprintf("%d checks in a row ended unknown (the last: %s) although the bridge still answers; it is treated as unresponsive", r.unknownInRow, m.id)
		}
	} else {
		r.unknownInRow = 0
	}
	return res
}

// probe asks for the handshake and makes one cheap store call, with a short deadline: a bridge
// that still answers both is alive (slow checks alone do not end a run); one whose store calls hang
// is not. Any answer counts, a store error (not found, …) or one that breaks the protocol: the
// bridge is there, and what it said is for the checks to judge.
func (r *runner) probe(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	answered := func(err error) bool {
		var re *bridge.RemoteError
		var pe *bridge.ProtocolError
		return err == nil || errors.As(err, &re) || errors.As(err, &pe)
	}
	if _, err := r.client.FetchHandshake(pctx); !answered(err) {
		return err
	}
	var err error
	switch {
	case r.client.EventStore() != nil:
		_, err = r.client.EventStore().Read(pctx, "loom-certify-probe")
	case r.client.SnapshotStore() != nil:
		_, err = r.client.SnapshotStore().LoadLatest(pctx, "loom-certify-probe")
	case r.client.ArchiveStore() != nil:
		_, err = r.client.ArchiveStore().Read(pctx, "loom-certify-probe")
	case r.client.BranchRegistry() != nil:
		_, err = r.client.BranchRegistry().Get(pctx, "loom-certify-probe")
	}
	if answered(err) {
		return nil
	}
	return err
}

func appendClause(cs []string, id string) []string {
	for _, c := range cs {
		if c == id {
			return cs
		}
	}
	return append(append([]string(nil), cs...), id)
}

func (r *runner) repro(p plan, id string) string {
	kind := p.kit
	if p.seam == "" {
		kind = r.cfg.Kinds[0]
		if len(r.cfg.Kinds) > 1 {
			kind = "all"
		}
	}
	if r.target.Describe().Kind == GoKind {
		// Go values have no flag: the reproducing line is the Go call.
		kinds := r.cfg.Kinds
		if p.seam != "" {
			kinds = []string{p.kit}
		}
		return fmt.Sprintf("certify.RunStore(ctx, stores, certify.Config{Kinds: %#v, Run: %q, Seed: %d, Timeout: %d, Faults: %t, Strict: %t})",
			kinds, "^"+regexp.QuoteMeta(id)+"$", r.cfg.Seed, r.cfg.Timeout, p.kit == "faults", r.cfg.Strict)
	}
	s := fmt.Sprintf("%s certify %s %s --run %s --seed %d", r.cfg.Command, kind, r.target.Describe().Flag,
		shq.Quote("^"+regexp.QuoteMeta(id)+"$"), r.cfg.Seed)
	if v := r.cfg.SpiVersions[p.seam]; v != "" {
		s += " --spi " + v
	}
	if p.kit == "faults" {
		s += " --faults"
	}
	if r.cfg.Timeout != kits.DefaultTimeout {
		s += " --timeout " + r.cfg.Timeout.String()
	}
	if r.cfg.Strict {
		s += " --strict"
	}
	return s
}

// runIDs lists the ids of every check a run of cfg's kinds may run, in run order: the bridge kit,
// each kind's kit, the fault kit with --faults.
func runIDs(cfg Config) []string {
	ids := bridgekit.Kit().Names()
	for _, kind := range cfg.Kinds {
		switch kind {
		case "eventstore":
			ids = append(ids, kits.EventStoreKit().Names()...)
		case "snapshotstore":
			ids = append(ids, kits.SnapshotStoreKit().Names()...)
		case "archivestore":
			ids = append(ids, kits.ArchiveStoreKit().Names()...)
		case "branchregistry":
			ids = append(ids, kits.BranchRegistryKit().Names()...)
		case KindDispatcher:
			ids = append(ids, kits.ExecutionDispatcherKit().Names()...)
		case "contentstore":
			ids = append(ids, kits.ContentStoreKit().Names()...)
		case "durablestatestore":
			ids = append(ids, kits.DurableStateStoreKit().Names()...)
		case "readmodelstore":
			ids = append(ids, kits.ReadModelStoreKit().Names()...)
		}
	}
	if cfg.Faults {
		ids = append(ids, FaultKit().Names()...)
	}
	return ids
}

// finish fills the seams and concludes (Conclude).
func (r *runner) finish() {
	rep := r.rep
	for _, kind := range r.cfg.Kinds {
		seam := seamOf(kind)
		sv := SeamVerdict{Seam: seam, Kit: kind, Current: rep.Spi[seam]}
		if rep.Handshake != nil {
			if s, ok := rep.Handshake.Seams[seam]; ok {
				sv.Served, sv.SpiVersion = true, s.SpiVersion
			}
		}
		if v := r.cfg.SpiVersions[seam]; v != "" && sv.SpiVersion != "" {
			if a, _ := manifest.ParseVersion(v); a.Less(mustVersion(sv.SpiVersion)) {
				sv.SpiVersion = v
			}
		}
		if sv.Served {
			sv.Lacks = Lacks(*rep.Handshake, seam, sv.SpiVersion)
		}
		rep.Seams = append(rep.Seams, sv)
	}
	Conclude(rep, r.cfg.Ledger, r.cfg.Now(), r.leftOut)
}

// Lacks lists the optional methods of seam, up to SPI version held, that the handshake does not
// declare, in manifest order: what a certificate of the seam does not cover.
func Lacks(hs bridge.Handshake, seam, held string) []string {
	s, ok := manifest.LookupSpi(seam)
	if !ok {
		return nil
	}
	v, err := manifest.ParseVersion(held)
	if err != nil {
		v, _ = manifest.ParseVersion(s.Version)
	}
	var out []string
	for _, m := range s.Methods {
		if m.Optional && !v.Less(mustVersion(m.Since)) && !hs.Declares(seam, m.Name) {
			out = append(out, m.Name)
		}
	}
	return out
}

func mustVersion(s string) manifest.Version {
	v, _ := manifest.ParseVersion(s)
	return v
}

func knownCheck(id string) bool {
	for _, c := range Checks() {
		if c.ID == id {
			return true
		}
	}
	for _, c := range kits.Checks() {
		if c.ID == id {
			return true
		}
	}
	return false
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
