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
	if !strings.HasPrefix(stdout, "loom store certificate — CERTIFIED: 7 store SPIs (EventStore 2.6.0 without storeNow, ") || !strings.Contains(stdout, "EventStore:     SPI 2.6.0  certified") {
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
		{[]string{"certify", "eventstore"}, 2, "name a target"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--url", "http://x"}, 2, "exactly one target"},
		{[]string{"certify", "stores", "--builtin", "memory"}, 2, "unknown kind"},
		{[]string{"certify", "eventstore", "--builtin", "oracle"}, 2, "want one of"},
		{[]string{"certify", "all", "--builtin", "memory", "--spi", "2.3.0"}, 2, "SEAM=VERSION"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--spi", "two"}, 2, "--spi"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--run", "("}, 2, "--run"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--expected-failures", ledger}, 2, "reason is empty"},
		{[]string{"certify", "eventstore", "--exec", "'unterminated"}, 2, "quote"},
		{[]string{"certify", "--builtin", "memory"}, 2, "name one kind: eventstore, snapshotstore, archivestore, branchregistry, contentstore, durablestatestore, readmodelstore, all, dispatcher or kernel"},
		{[]string{"certify", "stores", "--builtin", "memory"}, 2, "all, dispatcher or kernel)"},
		{[]string{"certify", "all", "--builtin", "broken:nope"}, 2, "no broken store \"nope\"; the broken stores are"},
		{[]string{"certify", "all", "--builtin", "broken:lossy-numbers"}, 2, "say eventstore/lossy-numbers, durablestatestore/lossy-numbers"},
		{[]string{"serve-store", "--broken", "nope"}, 2, "dropped-metadata"},
		{[]string{"serve-store"}, 2, "--backend memory|sqlite|postgres, or --broken NAME"},
		{[]string{"certify", "all"}, 2, "name a target: one of --builtin memory|sqlite|postgres"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--timeout", "-1s"}, 2, "--timeout -1s: want a positive duration"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--start-timeout", "0s"}, 2, "--start-timeout"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--report", "/nonexistent/dir/r.json"}, 2, "--report /nonexistent/dir/r.json: directory /nonexistent/dir does not exist"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--badge", "."}, 2, "is a directory"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--report", "-", "--junit", "-"}, 2, "at most one"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--accept", "bogus"}, 2, "unknown verdict"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--spi", "snapshotstore=1.0.0"}, 2, "not among the kinds"},
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

// --write-ledger starts a ledger from a failing run that --expected-failures reads back; "-"
// writes a report to stdout (the certificate moves to stderr); reproduce lines name the binary as
// invoked.
func TestCertifyWriteLedgerAndStdout(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "ledger.json")
	args := []string{"certify", "eventstore", "--builtin", "broken:off-by-one-read-range", "--seed", "5"}
	if code, _, stderr := runCLI(t, "", append(args, "--write-ledger", ledger)...); code != 1 {
		t.Fatalf("certify (failing) --write-ledger = exit %d: %s", code, lastLine(stderr))
	}
	b, err := os.ReadFile(ledger)
	if err != nil || !strings.Contains(string(b), `"check": "eventstore/read-range-bounds"`) {
		t.Fatalf("--write-ledger wrote %s (%v), want the failing check listed", b, err)
	}
	code, stdout, stderr := runCLI(t, "", append(args, "--expected-failures", ledger, "--report", "-")...)
	var rep struct {
		Verdict string `json:"verdict"`
		Checks  []struct {
			Repro string `json:"repro"`
		} `json:"checks"`
	}
	if code != 4 || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Verdict != "certified-with-waivers" {
		t.Fatalf("certify --expected-failures <written> --report - = exit %d, stdout %.200q; want exit 4 and the JSON report alone on stdout", code, stdout)
	}
	if !strings.Contains(stderr, "loom store certificate — CERTIFIED WITH 2 WAIVERS") {
		t.Errorf("the certificate did not move to stderr:\n%s", stderr)
	}
	if len(rep.Checks) == 0 || !strings.HasPrefix(rep.Checks[0].Repro, "go run ./cmd/loom-conform-full certify eventstore") {
		t.Errorf("repro = %q, want the binary as invoked (go run ./cmd/loom-conform-full under go test)", rep.Checks[0].Repro)
	}
}

func TestInvokedAs(t *testing.T) {
	for in, want := range map[string]string{
		"loom-conform": "loom-conform", "./bin/loom-conform": "./bin/loom-conform", "": "loom-conform",
		"/tmp/go-build123/b001/exe/loom-conform": "go run ./cmd/loom-conform-full", "/my tools/loom-conform": "'/my tools/loom-conform'",
	} {
		if got := invokedAs(in); got != want {
			t.Errorf("invokedAs(%q) = %q, want %q", in, got, want)
		}
	}
}

// --version, and completion of kinds and of --builtin, --backend, --profile, --spi, --accept.
func TestVersionAndCompletion(t *testing.T) {
	if code, out, _ := runCLI(t, "", "--version"); code != 0 || !strings.HasPrefix(out, "loom-conform "+toolVersion+" (kernel ABI") {
		t.Errorf("--version = exit %d, %q", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "certify", ""}, "branchregistry"},
		{[]string{"__complete", "certify", ""}, "readmodelstore"},
		{[]string{"__complete", "certify", ""}, "dispatcher"},
		{[]string{"__complete", "certify", ""}, "kernel"},
		{[]string{"__complete", "report", "m"}, "matrix\tPut several implementations' reports of one kind side by side"},
		{[]string{"__complete", "certify", "eventstore", "--builtin", ""}, "sqlite"},
		{[]string{"__complete", "serve-store", "--backend", ""}, "postgres"},
		{[]string{"__complete", "vectors", "--profile", ""}, "1.20.0"},
		{[]string{"__complete", "fold", "--profile", ""}, "1.26.0"},
		{[]string{"__complete", "certify", "eventstore", "--spi", "snap"}, "snapshotstore="},
		{[]string{"__complete", "certify", "eventstore", "--accept", ""}, "certified-with-waivers"},
	} {
		if code, out, _ := runCLI(t, "", c.args...); code != 0 || !strings.Contains(out, c.want+"\n") {
			t.Errorf("%v = exit %d, %q; want %q offered", c.args, code, out, c.want)
		}
	}
	if code, out, _ := runCLI(t, "", "completion", "bash"); code != 0 || !strings.Contains(out, "loom-conform") {
		t.Errorf("completion bash = exit %d", code)
	}
}
