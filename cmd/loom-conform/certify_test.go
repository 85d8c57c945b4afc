package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `certify all --builtin memory` prints progress and a summary on stderr and the certificate on
// stdout, writes every report format, and exits 0.
func TestCertifyBuiltinCLI(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	code, stdout, stderr := runCLI(t, "", "certify", "all", "--builtin", "memory", "--seed", "42",
		"--report", p("r.json"), "--junit", p("r.xml"), "--html", p("r.html"), "--badge", p("b.svg"))
	if code != 0 {
		t.Fatalf("certify all --builtin memory = exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.HasPrefix(stdout, "loom store certificate — CERTIFIED\n") || !strings.Contains(stdout, "EventStore:     SPI 2.6.0  certified") {
		t.Errorf("stdout = %q, want the certificate", stdout)
	}
	if !strings.Contains(stderr, "[  1/") || !strings.Contains(stderr, "total") {
		t.Errorf("stderr lacks progress or the summary table:\n%s", stderr)
	}
	var rep struct {
		Verdict string `json:"verdict"`
		Options struct {
			Seed int64 `json:"seed"`
		} `json:"options"`
		Checks []struct {
			Repro string `json:"repro"`
		} `json:"checks"`
	}
	b, err := os.ReadFile(p("r.json"))
	if err != nil || json.Unmarshal(b, &rep) != nil || rep.Verdict != "certified" || rep.Options.Seed != 42 || len(rep.Checks) == 0 {
		t.Fatalf("--report: %v %s", err, b)
	}
	if !strings.Contains(rep.Checks[0].Repro, "certify all --builtin memory --run") {
		t.Errorf("repro = %q, want a certify command line", rep.Checks[0].Repro)
	}
	for _, f := range []string{"r.xml", "r.html", "b.svg"} {
		if st, err := os.Stat(p(f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

func TestCertifyExitCodes(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "l.json")
	if err := os.WriteFile(ledger, []byte(`{"expectedFailures":[{"check":"x"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"certify", "eventstore", "--builtin", "broken:off-by-one-read-range", "--run", "read-range"}, 1, "not certified"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--accept", "not-certified"}, 2, "--accept"},
		{[]string{"certify", "eventstore"}, 2, "exactly one target"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--url", "http://x"}, 2, "exactly one target"},
		{[]string{"certify", "stores", "--builtin", "memory"}, 2, "unknown kind"},
		{[]string{"certify", "eventstore", "--builtin", "oracle"}, 2, "want one of"},
		{[]string{"certify", "all", "--builtin", "memory", "--spi", "2.3.0"}, 2, "SEAM=VERSION"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--spi", "two"}, 2, "--spi"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--run", "("}, 2, "--run"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--expected-failures", ledger}, 2, "reason is empty"},
		{[]string{"certify", "eventstore", "--exec", "'unterminated"}, 2, "quote"},
		{[]string{"serve-store", "--backend", "oracle"}, 2, "unknown backend"},
		{[]string{"serve-store"}, 2, "backend"},
		{[]string{"serve-store", "--backend", "memory", "--listen", "no-port"}, 2, "--listen"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v = exit %d, stderr %q; want exit %d mentioning %q", c.args, code, lastLine(stderr), c.code, c.msg)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
