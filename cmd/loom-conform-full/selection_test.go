package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/fitness"
)

// Reference: I-CERT-32 — a --run that selects nothing is bad input (exit 2) on every verb that
// takes one, naming the pattern and ids it could have selected, before anything starts; never a
// run that judged nothing and passed (with --accept partial, certify's typo would exit 0).
func TestRunSelectingNothingIsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ids  string // one of the ids the error must name
	}{
		{[]string{"certify", "eventstore", "--builtin", "memory", "--run", "nosuchcheck", "--accept", "partial"}, "bridge/handshake"},
		{[]string{"certify", "all", "--builtin", "memory", "--run", "eventstore/append-conflit"}, "eventstore/append-conflict"},
		{[]string{"certify", "kernel", "--exec", "/nonexistent/kernel", "--run", "nosuchcheck"}, "kernel/handshake"},
		{[]string{"vectors", "--quiet", "--run", "nosuchvector"}, "canonical/"},
		{[]string{"goldens", "check", "--corpus", "../../goldens/corpus", "--run", "nosuchgolden"}, "basic-echo"},
		{[]string{"goldens", "check", "--corpus", "../../goldens/corpus", "--run", "nosuchgolden", "--update"}, "basic-echo"},
		{[]string{"fitness", "--run", "nosuchgate"}, "pins/abi-schema-wire"},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		pattern := ""
		for i, a := range tc.args {
			if a == "--run" {
				pattern = tc.args[i+1]
			}
		}
		if code != 2 || !strings.Contains(stderr, `--run "`+pattern+`" selects no `) || !strings.Contains(stderr, tc.ids) {
			t.Errorf("cli/run-selects-nothing [I-CERT-32]: loom-conform %s = exit %d, %q; want exit 2 naming the pattern and ids such as %s",
				strings.Join(tc.args, " "), code, stderr, tc.ids)
		}
	}
}

// Reference: I-CERT-33 — a ledger naming a check the harness does not have is refused before the
// run, exit 2, naming the entry.
func TestLedgerNamingNoCheckIsBadInput(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "ledger.json")
	if err := os.WriteFile(ledger, []byte(`{"expectedFailures":[{"check":"eventstore/no-such-check","reason":"typo"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "certify", "eventstore", "--builtin", "memory", "--expected-failures", ledger)
	if code != 2 || !strings.Contains(stderr, `expectedFailures[0].check "eventstore/no-such-check" names no check`) || strings.Contains(stderr, "starting") {
		t.Errorf("cli/ledger-names-no-check [I-CERT-33]: certify with a ledger naming no check = exit %d, %q; want exit 2 before the run", code, stderr)
	}
}

// Reference: I-CERT-32 — a run of a subset says so on every page it writes: the summary and the
// HTML headline name how many of how many were selected, and by what.
func TestSubsetSaidAsSubset(t *testing.T) {
	html := filepath.Join(t.TempDir(), "r.html")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fitness", "--root", "../..", "--run", "^coverage/must$", "--html", html}, fmt.Sprintf("(1 of %d gates selected by --run ^coverage/must$)", len(fitness.Gates()))},
		{[]string{"goldens", "check", "--corpus", "../../goldens/corpus", "--run", "^basic-echo$", "--no-g2", "--html", html}, "(1 of "},
		{[]string{"vectors", "--quiet", "--run", "^canonical/", "--html", html}, " vector(s), selected by --profile or --run"},
	} {
		code, stdout, stderr := runCLI(t, "", tc.args...)
		page, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		if code != 0 || !strings.Contains(stdout, tc.want) || !strings.Contains(string(page), tc.want) {
			t.Errorf("cli/subset-said [I-CERT-32]: loom-conform %s = exit %d, summary %q (stderr %q); want the summary and the page to say %q",
				strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
}
