package certify_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// One route, one certificate (I-CERT-62): Go values certified with certify.RunStore get the checks,
// verdicts, headline and certificate the command line gives the same stores (--builtin memory),
// the harness named by its version even when Config.ToolVersion is empty, and reproducing lines
// that name the Go call.
func TestGoRouteGivesTheCommandLinesCertificate(t *testing.T) {
	cfg := certify.Config{Kinds: []string{"eventstore", "snapshotstore"}, Seed: 9}
	stores, closeStores, err := certify.OpenBackend(context.Background(), certify.Backend{Name: "memory"}) // what --builtin memory serves
	if err != nil {
		t.Fatal(err)
	}
	defer closeStores()
	goRep, err := certify.RunStore(context.Background(), stores, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cliRep, err := certify.Run(context.Background(), certify.BuiltinTarget{Backend: certify.Backend{Name: "memory"}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := func(r *certify.Report) string {
		var b strings.Builder
		for _, c := range r.Checks {
			b.WriteString(c.ID + " " + string(c.Verdict) + "\n")
		}
		return b.String()
	}
	if g, c := verdicts(goRep), verdicts(cliRep); g != c {
		t.Errorf("the Go route ran other checks or reached other verdicts:\n%s\nthe command line:\n%s", g, c)
	}
	if goRep.Verdict != certify.Certified || goRep.Verdict != cliRep.Verdict || certify.Headline(goRep) != certify.Headline(cliRep) {
		t.Errorf("verdicts %s / %s, headlines %q / %q; want one certificate", goRep.Verdict, cliRep.Verdict, certify.Headline(goRep), certify.Headline(cliRep))
	}
	certificate := func(r *certify.Report) string {
		var b strings.Builder
		if err := certify.WriteCertificate(&b, r); err != nil {
			t.Fatal(err)
		}
		// the target and the round trip (a measurement, as the run's duration) differ between runs
		s := regexp.MustCompile(`(?m)^  (target|round trip): .*\n`).ReplaceAllString(b.String(), "")
		return regexp.MustCompile(`, [0-9.]+s\n`).ReplaceAllString(s, "\n")
	}
	if g, c := certificate(goRep), certificate(cliRep); g != c {
		t.Errorf("certificates differ:\n%s\nthe command line:\n%s", g, c)
	}
	if !strings.Contains(certificate(goRep), "harness:        loom-conform "+manifest.BuildVersion("")+" (") {
		t.Errorf("the certificate does not name the harness's version:\n%s", certificate(goRep))
	}
	for _, c := range goRep.Checks {
		if !strings.HasPrefix(c.Repro, "certify.RunStore(ctx, stores, certify.Config{") {
			t.Fatalf("%s: reproduce %q, want the Go call", c.ID, c.Repro)
		}
	}
	if _, err := certify.RunStore(context.Background(), bridge.Stores{}, cfg); err != nil {
		t.Fatal(err)
	} else if rep, _ := certify.RunStore(context.Background(), bridge.Stores{}, cfg); rep.Verdict != certify.TargetFailed || !strings.Contains(rep.TargetError, "no store to certify") {
		t.Errorf("RunStore of no stores = %s %q, want target-failed naming the empty Stores", rep.Verdict, rep.TargetError)
	}
}
