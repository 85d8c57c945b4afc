package certify_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// certifyKernel certifies the kernel h serves with cfg (its seed and time limit defaulted) and
// renders every surface.
func certifyKernel(t *testing.T, h http.Handler, cfg certify.Config) *certify.Report {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	return certifyKernelAt(t, srv.URL+"/", cfg)
}

// certifyKernelAt certifies the kernel at url.
func certifyKernelAt(t *testing.T, url string, cfg certify.Config) *certify.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg.Kinds = []string{certify.KernelKind}
	if cfg.Seed == 0 {
		cfg.Seed = 11
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Minute
	}
	rep, err := certify.RunKernel(ctx, certify.URLTarget{URL: url}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []func(*bytes.Buffer, *certify.Report) error{
		func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteJSON(b, r) },
		func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteJUnit(b, r) },
		func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteHTML(b, r) },
		func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteBadge(b, r) },
	} {
		var b bytes.Buffer
		if err := w(&b, rep); err != nil || b.Len() == 0 {
			t.Errorf("rendering the kernel report: %v (%d bytes)", err, b.Len())
		}
	}
	return rep
}

func reference(t *testing.T, f kernel.Features) *carrier.Carrier {
	t.Helper()
	c, _, err := carrier.NewProfile(memory.NewEventStore(), false, carrier.Options{Features: f, Implementation: carrier.Implementation{Name: "ref", Version: "9.9"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// certify kernel certifies the reference kernel behind serve-kernel's carrier, with Wave 2 off and
// on, one verdict per check of the kit; its certificate is a kernel certificate naming the
// handshake's implementation and versions.
func TestCertifyKernel(t *testing.T) {
	for name, f := range map[string]kernel.Features{"wave1": {}, "wave2": carrier.Wave2()} {
		t.Run(name, func(t *testing.T) {
			rep := certifyKernel(t, reference(t, f), certify.Config{})
			if !rep.Certified() || rep.Summary.Total != len(kernelkit.Kit().Checks) || rep.Summary.Fail+rep.Summary.Unknown != 0 || rep.Kind != certify.ReportKind {
				t.Fatalf("certify/kernel [I-WIRE-8]: the reference kernel: verdict=%s kind=%q summary=%+v problems=%v", rep.Verdict, rep.Kind, rep.Summary, rep.Problems)
			}
			var b bytes.Buffer
			if err := certify.WriteCertificate(&b, rep); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"loom kernel certificate — CERTIFIED", "implementation: ref 9.9", "wire 1.0.0, kernel ABI 1.3.0, event schema 1.26.0", "conformance extension: served"} {
				if !strings.Contains(b.String(), want) {
					t.Errorf("certify/kernel: the certificate does not say %q:\n%s", want, b.String())
				}
			}
			if name == "wave2" && !strings.Contains(b.String(), "Wave 2:         continueAsNew, receive, select") {
				t.Errorf("certify/kernel: the certificate does not list the Wave 2 features:\n%s", b.String())
			}
			for _, c := range rep.Checks {
				if !strings.Contains(c.Repro, "--timeout 1m0s") || !strings.Contains(c.Repro, "--run '^"+regexp.QuoteMeta(c.ID)+"$'") {
					t.Fatalf("certify/kernel: reproduce line %q does not re-run the same run (its --run, --seed and --timeout)", c.Repro)
				}
			}
		})
	}
}

// A broken kernel is not certified: the check meant for it fails and blocks (a sample of the
// classes; kits/kernelkit proves every broken kernel against its checks).
func TestCertifyBrokenKernel(t *testing.T) {
	for _, name := range []string{"two-drivers", "unfenced-execution.complete", "code-refused-as-not-runnable", "resume-kernel-type-through"} {
		t.Run(name, func(t *testing.T) {
			b, ok := kernelkit.LookupBroken(name)
			if !ok {
				t.Fatalf("no broken kernel %s", name)
			}
			h, err := kernelkit.NewBroken(name, memory.NewEventStore(), carrier.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rep := certifyKernel(t, h, certify.Config{Run: "^(" + strings.Join(quoteAll(b.CaughtBy), "|") + ")$"})
			if rep.Verdict == certify.Certified {
				t.Fatalf("certify/kernel [I-WIRE-8]: broken kernel %s certified", name)
			}
			for _, ch := range rep.Checks {
				if ch.Verdict != kits.Fail || !ch.Blocking {
					t.Errorf("certify/kernel [I-WIRE-8]: %s on %s = %s (blocking %v), want a blocking fail", ch.ID, name, ch.Verdict, ch.Blocking)
				}
			}
		})
	}
}

// --shard runs a stable part of the kernel kit's checks, each shard is partial, and the shards
// merge into the report one whole run gives (I-SHARD-1..3); --run is partial too.
func TestCertifyKernelShardsMerge(t *testing.T) {
	h := reference(t, kernel.Features{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	var reports []*certify.Report
	n := 0
	for i := 1; i <= 3; i++ {
		rep := certifyKernelAt(t, srv.URL+"/", certify.Config{Shard: shard.Shard{Index: i, Count: 3}})
		if rep.Verdict != certify.Partial || rep.Shard == "" {
			t.Fatalf("certify/shards-merge [I-SHARD-2]: kernel shard %d/3 = %s (shard %q), want partial", i, rep.Verdict, rep.Shard)
		}
		n += len(rep.Checks)
		var b bytes.Buffer
		if err := certify.WriteJSON(&b, rep); err != nil {
			t.Fatal(err)
		}
		back, err := certify.ReadReport(b.Bytes())
		if err != nil {
			t.Fatalf("ReadReport(kernel shard %d) = %v", i, err)
		}
		reports = append(reports, back)
	}
	if n != len(kernelkit.Kit().Checks) {
		t.Fatalf("certify/shards-merge [I-SHARD-1]: the shards ran %d checks, the kit has %d", n, len(kernelkit.Kit().Checks))
	}
	merged, err := certify.MergeReports(reports)
	if err != nil {
		t.Fatalf("certify/shards-merge [I-SHARD-3]: MergeReports(kernel shards) = %v", err)
	}
	if merged.Verdict != certify.Certified || len(merged.Checks) != n {
		t.Fatalf("certify/shards-merge [I-SHARD-3]: merged kernel shards = %s with %d checks, want certified with %d", merged.Verdict, len(merged.Checks), n)
	}
	if rep := certifyKernel(t, h, certify.Config{Run: "^kernel/handshake/"}); rep.Verdict != certify.Partial || rep.Summary.LeftOut == 0 {
		t.Fatalf("certify/kernel: --run = %s (left out %d), want partial", rep.Verdict, rep.Summary.LeftOut)
	}
}

// A ledger excuses a kernel's listed failure (a waiver), and one naming no check of the kit is a
// problem (I-BRIDGE-8).
func TestCertifyKernelLedger(t *testing.T) {
	h, err := kernelkit.NewBroken("wire-follows-schema", memory.NewEventStore(), carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := certify.ParseLedger("ledger.json", []byte(`{"expectedFailures":[{"check":"kernel/handshake/versions","reason":"known"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rep := certifyKernel(t, h, certify.Config{Ledger: ledger})
	if rep.Verdict != certify.CertifiedWithWaivers {
		t.Fatalf("certify/ledger [I-BRIDGE-8]: a kernel whose one failure is listed = %s (problems %v), want certified-with-waivers", rep.Verdict, rep.Problems)
	}
	// An entry naming no kernel check, and a --run selecting none, are bad input refused before the
	// target starts (I-CERT-33, I-CERT-32).
	bad, _ := certify.ParseLedger("ledger.json", []byte(`{"expectedFailures":[{"check":"kernel/no-such-check","reason":"typo"}]}`))
	unstarted := certify.ExecTarget{Command: "/nonexistent/kernel"}
	if _, err := certify.RunKernel(context.Background(), unstarted, certify.Config{Kinds: []string{certify.KernelKind}, Ledger: bad}); err == nil ||
		!strings.Contains(err.Error(), `"kernel/no-such-check" names no check of the kernel kit`) {
		t.Fatalf("certify/ledger [I-CERT-33]: a ledger naming no kernel check = %v, want bad input naming it", err)
	}
	if _, err := certify.RunKernel(context.Background(), unstarted, certify.Config{Kinds: []string{certify.KernelKind}, Run: "kernel/handshak/version"}); err == nil ||
		!strings.Contains(err.Error(), `--run "kernel/handshak/version" selects no check of certify kernel (of `) || !strings.Contains(err.Error(), "kernel/handshake/versions") {
		t.Fatalf("certify/run [I-CERT-32]: a --run selecting no kernel check = %v, want bad input naming the pattern and the nearest ids", err)
	}
}

// A kernel's round trip is measured before its checks: with 40 ms added to every answer (as a
// server without TCP_NODELAY costs) the median cannot be below 40 ms on any machine; when it is
// judged slow (judgeLatency, proven without a clock in kernel_internal_test.go) the note comes
// before the first check and the certificate says why.
func TestCertifyKernelSlowNote(t *testing.T) {
	ref := reference(t, kernel.Features{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(40 * time.Millisecond)
		ref.ServeHTTP(w, r)
	})
	var progress bytes.Buffer
	rep := certifyKernel(t, slow, certify.Config{Run: "^kernel/handshake/versions$", Progress: &progress})
	l := rep.RoundTrip
	if l == nil || l.MedianMs < 40 || l.Samples == 0 {
		t.Fatalf("certify/kernel: a kernel 40 ms a call: latency %+v, want a median of 40 ms or more", l)
	}
	if !l.Slow {
		t.Logf("the reference kernel itself answered in %.1f ms on this machine: not far enough apart to call the other slow", l.ReferenceMs)
		return
	}
	note := strings.Index(progress.String(), "NOTE slow kernel")
	if note < 0 || note > strings.Index(progress.String(), "kernel/handshake/versions") {
		t.Fatalf("certify/kernel: the slow note is not printed before the checks:\n%s", progress.String())
	}
	var b bytes.Buffer
	_ = certify.WriteCertificate(&b, rep)
	if !strings.Contains(b.String(), "TCP_NODELAY") {
		t.Errorf("certify/kernel: the certificate of a slow kernel does not say why:\n%s", b.String())
	}
}

// A kernel that stops answering mid-run is the target's outage, not a clause's failure: the run
// ends target-failed naming it, and the checks judged before it keep their verdicts.
func TestCertifyKernelOutage(t *testing.T) {
	ref := reference(t, kernel.Features{})
	var calls atomic.Int64
	gone := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) > 300 {
			panic(http.ErrAbortHandler) // the connection drops: the kernel is gone
		}
		ref.ServeHTTP(w, r)
	})
	rep := certifyKernel(t, gone, certify.Config{OutageWait: time.Second})
	if rep.Verdict != certify.TargetFailed || !strings.Contains(rep.TargetError, "does not answer") || len(rep.Checks) == 0 {
		t.Fatalf("certify/kernel: a kernel gone mid-run = %s (%q, %d checks judged), want target-failed naming it", rep.Verdict, rep.TargetError, len(rep.Checks))
	}
	for _, c := range rep.Checks {
		if c.Verdict == kits.Fail {
			t.Errorf("certify/kernel: %s failed (%s) although the kernel was only gone", c.ID, c.Message)
		}
	}
}
