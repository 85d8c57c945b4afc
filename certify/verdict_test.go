package certify_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
)

// Conclude gives each way a run falls short of a full judgement at the current SPI its own
// verdict, the worst applying, and the exit code and badge follow the verdict (I-CERT-1..6).
func TestConcludeVerdicts(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	base := func() *certify.Report {
		return &certify.Report{
			Kinds: []string{"eventstore"},
			Seams: []certify.SeamVerdict{{Seam: "EventStore", Kit: "eventstore", SpiVersion: "2.6.0", Current: "2.6.0", Served: true}},
			Checks: []certify.CheckResult{
				{Kit: "bridge", ID: "bridge/handshake", Level: spec.Must, Verdict: kits.Pass},
				{Kit: "eventstore", ID: "eventstore/version-claim", Level: spec.Must, Verdict: kits.Pass},
				{Kit: "eventstore", ID: "eventstore/a", Level: spec.Must, Verdict: kits.Pass},
				{Kit: "eventstore", ID: "eventstore/b", Level: spec.Must, Verdict: kits.Pass},
				{Kit: "eventstore", ID: "eventstore/s", Level: spec.Should, Verdict: kits.Fail},
			},
		}
	}
	waive := &certify.Ledger{Entries: []certify.Expectation{{Check: "eventstore/b", Reason: "tracked"}}}
	waiveShould := &certify.Ledger{Entries: []certify.Expectation{{Check: "eventstore/s", Reason: "tracked"}}}
	cases := []struct {
		name    string
		edit    func(r *certify.Report)
		ledger  *certify.Ledger
		leftOut []spec.Level
		want    certify.Verdict
		exit    int
		badge   string
	}{
		{"full run, all required pass, a recommended (SHOULD) fails", func(*certify.Report) {}, nil, nil, certify.Certified, 0, "certified, 1 recommendation not met"},
		{"everything passes", func(r *certify.Report) { r.Checks[4].Verdict = kits.Pass }, nil, nil, certify.Certified, 0, "certified"},
		{"listed recommendation is no waiver", func(*certify.Report) {}, waiveShould, nil, certify.Certified, 0, "certified, 1 recommendation not met"},
		{"recommended without verdict", func(r *certify.Report) { r.Checks[4].Verdict = kits.Unknown }, nil, nil, certify.Certified, 0, "certified, 1 recommendation not met"},
		{"--strict: an unmet recommendation blocks", func(r *certify.Report) { r.Options.Strict = true }, nil, nil, certify.NotCertified, 1, "not certified"},
		{"--strict: a listed recommendation is a waiver", func(r *certify.Report) { r.Options.Strict = true }, waiveShould, nil, certify.CertifiedWithWaivers, 4, "certified with 1 waiver"},
		{"waived MUST failure", func(r *certify.Report) { r.Checks[3].Verdict = kits.Fail }, waive, nil, certify.CertifiedWithWaivers, 4, "certified with 1 waiver"},
		{"unlisted MUST failure", func(r *certify.Report) { r.Checks[3].Verdict = kits.Fail }, nil, nil, certify.NotCertified, 1, "not certified"},
		{"MUST without verdict", func(r *certify.Report) { r.Checks[3].Verdict = kits.Unknown }, nil, nil, certify.NotCertified, 1, "not certified"},
		{"MUST in the run-wide bridge kit fails", func(r *certify.Report) { r.Checks[0].Verdict = kits.Fail }, nil, nil, certify.NotCertified, 1, "not certified"},
		{"only the version claim ran", func(r *certify.Report) { r.Checks[2].Verdict, r.Checks[3].Verdict = kits.Skip, kits.Skip }, nil, nil, certify.NotCertified, 1, "not certified"},
		{"subset", func(r *certify.Report) { r.Options.Run = "a" }, nil, []spec.Level{spec.Must}, certify.Partial, 5, "partial run"},
		{"subset with a waiver", func(r *certify.Report) { r.Options.Run = "a|b"; r.Checks[3].Verdict = kits.Fail }, waive, nil, certify.Partial, 5, "partial run"},
		{"held by --spi or claim", func(r *certify.Report) { r.Seams[0].SpiVersion = "1.0.0" }, nil, nil, certify.HeldToOlder, 6, "held to 1.0.0"},
		{"held with a waiver", func(r *certify.Report) { r.Seams[0].SpiVersion = "2.3.0"; r.Checks[3].Verdict = kits.Fail }, waive, nil, certify.HeldToOlder, 6, "held to 2.3.0"},
		{"subset and held", func(r *certify.Report) { r.Options.Run = "a"; r.Seams[0].SpiVersion = "2.3.0" }, nil, nil, certify.Partial, 5, "partial run"},
		{"a run problem", func(r *certify.Report) { r.Problems = []string{"interrupted"} }, nil, nil, certify.NotCertified, 1, "not certified"},
		{"no seam served", func(r *certify.Report) { r.Seams[0].Served = false }, nil, nil, certify.NotCertified, 1, "not certified"},
		{"target failed", func(r *certify.Report) { r.Checks, r.Seams[0].Served, r.TargetError = nil, false, "no such file" }, nil, nil, certify.TargetFailed, 3, "target failed"},
	}
	for _, c := range cases {
		r := base()
		c.edit(r)
		certify.Conclude(r, c.ledger, now, c.leftOut)
		msg, _ := certify.BadgeMessage(r)
		if r.Verdict != c.want || r.Verdict.ExitCode() != c.exit || msg != c.badge {
			t.Errorf("certify/verdicts [I-CERT-1]: Conclude(%s) = %s (exit %d, badge %q), want %s (exit %d, badge %q); problems %q",
				c.name, r.Verdict, r.Verdict.ExitCode(), msg, c.want, c.exit, c.badge, r.Problems)
		}
		if (r.Verdict == certify.Certified) != r.Certified() {
			t.Errorf("certify/verdicts [I-CERT-1]: %s: Certified() = %v disagrees with verdict %s", c.name, r.Certified(), r.Verdict)
		}
	}
}

// A URL that refuses every connection is target-failed with the cause, not a list of unknown
// checks (I-CERT-4).
func TestURLThatRefusesIsTargetFailed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/"
	l.Close() // nothing listens there any more
	rep, err := certify.Run(context.Background(), certify.URLTarget{URL: url},
		certify.Config{Kinds: []string{"eventstore"}, StartTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != certify.TargetFailed || !strings.Contains(rep.TargetError, "refused") || len(rep.Checks) != 0 {
		t.Errorf("certify/verdicts [I-CERT-4]: Run(refusing URL) = %s, target error %q, %d checks; want target-failed naming the refusal, no check",
			rep.Verdict, rep.TargetError, len(rep.Checks))
	}
}

// A reproduce line re-runs the same run: every flag that changes a check's verdict is on it.
func TestReproCarriesTheRun(t *testing.T) {
	rep, err := certify.Run(context.Background(), certify.BuiltinTarget{Backend: certify.Backend{Name: "memory"}},
		certify.Config{Kinds: []string{"eventstore"}, Run: "^eventstore/append-read-order$", Seed: 5, Timeout: 7 * time.Second,
			Strict: true, SpiVersions: map[string]string{"EventStore": "2.3.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Checks) < 1 {
		t.Fatalf("checks = %+v", rep.Checks)
	}
	got := rep.Checks[len(rep.Checks)-1].Repro
	for _, want := range []string{"certify eventstore --builtin memory", "--run '^eventstore/append-read-order$'", "--seed 5", "--timeout 7s", "--strict", "--spi 2.3.0"} {
		if !strings.Contains(got, want) {
			t.Errorf("repro %q lacks %q", got, want)
		}
	}
}
