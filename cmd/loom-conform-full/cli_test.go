package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/manifest"
)

// runCLI runs the CLI in-process and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// Reference: spec §9 — compat exits non-zero on a mismatch; 2 on malformed input.
func TestCompatExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"compat", "--abi", "1.9.0"}, 0, ""},
		{[]string{"compat", "--abi", "1.3.0", "--event-schema", "1.0.0", "--wire", "1.5.0", "--spi", "EventStore=2.1.0"}, 0, ""},
		{[]string{"compat", "--abi", "2.0.0"}, 1, "kernel ABI 2.0.0"},
		{[]string{"compat", "--abi", "1.0.0", "--spi", "SnapshotStore=2.0.0"}, 1, "SnapshotStore SPI"},
		{[]string{"compat", "--abi", "banana"}, 2, "banana"},
		{[]string{"compat", "--abi", "1.0.0", "--spi", "EventStore"}, 2, "NAME=VERSION"},
		{[]string{"compat", "--abi", "1.0.0", "--spi", "Nope=1.0.0"}, 2, "unknown SPI"},
		{[]string{"compat"}, 2, "--abi is required"},
		{[]string{"compat", "--bogus"}, 2, "unknown flag"},
	}
	run := func(args ...string) (int, string) {
		code, _, stderr := runCLI(t, "", args...)
		return code, stderr
	}
	check := func(run func(args ...string) (int, string)) []string {
		var errs []string
		for _, c := range cases {
			code, stderr := run(c.args...)
			if code != c.code || !strings.Contains(stderr, c.err) {
				errs = append(errs, fmt.Sprintf("cli/compat-exit-codes [S9.compat.exit-nonzero S9.compat.shared-major]: loom-conform %v = exit %d, stderr %q; want exit %d, stderr containing %q", c.args, code, stderr, c.code, c.err))
			}
		}
		return errs
	}
	for _, e := range check(run) {
		t.Error(e)
	}
	// A compat verb that reports an incompatibility but exits 0 fails the same table.
	exitsZero := func(args ...string) (int, string) {
		code, stderr := run(args...)
		if code == 1 {
			code = 0
		}
		return code, stderr
	}
	if errs := check(exitsZero); len(errs) == 0 {
		t.Error("the compat table accepts a verb that exits 0 on an incompatible verdict")
	} else {
		proof.Rejected(t, "cli/compat/exits-zero-when-incompatible", "cli/compat-exit-codes", proof.Failure("cli/compat-exit-codes", nil, "check(exitsZero)", errs[0]))
	}
}

// Reference: spec §9 — the manifest shows every version, syscall, event type and SPI.
func TestManifestJSON(t *testing.T) {
	for _, verb := range []string{"manifest", "kernel-manifest"} {
		code, out, stderr := runCLI(t, "", verb, "--json")
		if code != 0 {
			t.Fatalf("%s --json = exit %d: %s", verb, code, stderr)
		}
		var m manifest.Manifest
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%s --json: %v", verb, err)
		}
		if m.KernelAbiVersion != "1.3.0" || m.EventSchemaVersion != "1.26.0" || m.WireAbiVersion != "1.0.0" {
			t.Errorf("%s versions = %s/%s/%s", verb, m.KernelAbiVersion, m.EventSchemaVersion, m.WireAbiVersion)
		}
		if len(m.Syscalls) != 13 || len(m.EventTypes) != len(manifest.EventTypes()) || len(m.Spis) != 8 {
			t.Errorf("%s: %d syscalls, %d event types, %d SPIs", verb, len(m.Syscalls), len(m.EventTypes), len(m.Spis))
		}
	}
	code, out, _ := runCLI(t, "", "manifest")
	if code != 0 || !strings.Contains(out, "continueAsNew") || !strings.Contains(out, "INBOX_RELEASED") || !strings.Contains(out, "deleteThrough (2.6.0)") {
		t.Errorf("manifest table output incomplete:\n%s", out)
	}
}

func TestSpecCoverageJSON(t *testing.T) {
	code, out, stderr := runCLI(t, "", "spec", "--coverage", "--json")
	if code != 0 {
		t.Fatalf("spec --coverage --json = exit %d: %s", code, stderr)
	}
	var cov struct {
		Rows []struct {
			Clause struct{ ID string } `json:"clause"`
		} `json:"rows"`
		Totals struct{ Covered, Uncovered int } `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &cov); err != nil {
		t.Fatal(err)
	}
	if len(cov.Rows) < 150 || cov.Totals.Covered == 0 || cov.Totals.Covered+cov.Totals.Uncovered != len(cov.Rows) {
		t.Fatalf("spec --coverage: %d rows, totals %+v", len(cov.Rows), cov.Totals)
	}
	if code, out, _ := runCLI(t, "", "version"); code != 0 || !strings.Contains(out, "kernel ABI 1.3.0") {
		t.Fatalf("version = %d %q", code, out)
	}
}

// Small CLI defects stay fixed: compat prints one reason per line and names a pre-release suffix;
// digest refuses an empty event type; the manifest text shows what --json shows.
func TestCLISmallDefects(t *testing.T) {
	code, _, stderr := runCLI(t, "", "compat", "--abi", "2.0.0", "--event-schema", "2.0.0")
	if code != 1 || !strings.Contains(stderr, "kernel ABI 2.0.0 does not share major version 1 with 1.3.0\nevent schema 2.0.0") {
		t.Errorf("compat (two mismatches) = exit %d, stderr %q; want one reason per line", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "compat", "--abi", "1.0.0-rc1"); code != 2 || !strings.Contains(stderr, `pre-release and build suffixes ("-rc1")`) {
		t.Errorf("compat --abi 1.0.0-rc1 = exit %d, stderr %q; want exit 2 naming the suffix", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "digest", "--segment", "0", "--event-type", "", "--payload", "{}"); code != 2 || !strings.Contains(stderr, "--event-type is empty") {
		t.Errorf("digest --event-type '' = exit %d, stderr %q; want exit 2", code, stderr)
	}
	_, text, _ := runCLI(t, "", "manifest")
	for _, m := range manifest.KernelManifest().WireMethods {
		if !strings.Contains(text, m.Method) {
			t.Errorf("manifest text lacks wire method %s", m.Method)
		}
	}
	for _, c := range manifest.KernelManifest().CarrierMethods {
		if !strings.Contains(text, c) {
			t.Errorf("manifest text lacks carrier method %s", c)
		}
	}
}

// A reproduce line names the binary as invoked, quoted so a shell runs that same binary whatever its
// path holds (issue: paths were printed raw).
func TestInvokedAsQuotesThePath(t *testing.T) {
	for argv0, want := range map[string]string{
		"loom-conform":                "loom-conform",
		"/usr/local/bin/loom-conform": "/usr/local/bin/loom-conform",
		"/opt/my tools/loom-conform":  "'/opt/my tools/loom-conform'",
		"/tmp/a;b/loom-conform":       "'/tmp/a;b/loom-conform'",
		"/tmp/x(1)/loom-conform":      "'/tmp/x(1)/loom-conform'",
		"/tmp/go-build123/exe/main":   "go run ./cmd/loom-conform-full",
		"":                            "loom-conform",
	} {
		if got := invokedAs(argv0); got != want {
			t.Errorf("invokedAs(%q) = %s, want %s", argv0, got, want)
		}
	}
}

// A flag that needs another, or an empty value that would change what is tested, is refused
// rather than ignored (issue: spec --strict alone was ignored; vectors --exec ” tested the
// reference against itself and exited 0).
func TestFlagsMeanWhatTheySay(t *testing.T) {
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"spec", "--strict"}, "--strict needs --coverage"},
		{[]string{"spec", "--proofs", t.TempDir()}, "--proofs needs --coverage"},
		{[]string{"vectors", "--exec", ""}, "--exec is empty"},
		{[]string{"vectors", "--exec", "  "}, "--exec is empty"},
	} {
		if code, _, stderr := runCLI(t, "", c.args...); code != 2 || !strings.Contains(stderr, c.err) {
			t.Errorf("loom-conform %q = exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.err)
		}
	}
}

func TestCertifyFlagsThatNeedAnother(t *testing.T) {
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"certify", "eventstore", "--builtin", "memory", "--schema", "s"}, "--schema needs --dsn"},
		{[]string{"certify", "eventstore", "--builtin", "memory", "--port", "9000"}, "--port needs --image"},
	} {
		if code, _, stderr := runCLI(t, "", c.args...); code != 2 || !strings.Contains(stderr, c.err) {
			t.Errorf("loom-conform %q = exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.err)
		}
	}
}

// Reference: I-CERT-10 — `loom-conform spec CLAUSE` prints a clause whole, a choice with its
// legal options, ours first and marked; --json carries them; an unknown id is bad input naming
// ids of its family.
func TestSpecClauseShowsLegalOptions(t *testing.T) {
	code, out, stderr := runCLI(t, "", "spec", "I-FOLD-27", "S4.fold.proto-rejected")
	if code != 0 {
		t.Fatalf("spec I-FOLD-27 = exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"I-FOLD-27 — INBOX_RELEASED carries operator or auto", "§4, MUST, interpretation, choice (recommended)", "  why: Spec §4 (1.25.0)",
		"    1. a member present and not null is carried whatever its value, and only deliver: true delivers (ours)\n",
		"    2. a member is carried only when it holds a usable value (operator a string, auto true)\n",
		"full text: docs/interpretations.md#i-fold-27--", "S4.fold.proto-rejected — ", "§4, MUST, spec (required)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("spec/clause [I-CERT-10]: spec I-FOLD-27 S4.fold.proto-rejected lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "", "spec", "I-FOLD-27", "--json")
	var cs []struct{ Options []string }
	if err := json.Unmarshal([]byte(out), &cs); code != 0 || err != nil || len(cs) != 1 || len(cs[0].Options) != 2 {
		t.Errorf("spec I-FOLD-27 --json = exit %d, %v, %+v; want one clause with two options", code, err, cs)
	}
	code, _, stderr = runCLI(t, "", "spec", "I-FOLD-77")
	if code != 2 || !strings.Contains(stderr, `no clause "I-FOLD-77" (nearest: I-FOLD-`) {
		t.Errorf("spec I-FOLD-77 = exit %d, %q; want exit 2 naming I-FOLD- ids", code, stderr)
	}
	if code, _, stderr = runCLI(t, "", "spec", "I-FOLD-7", "--coverage"); code != 2 || !strings.Contains(stderr, "one or the other") {
		t.Errorf("spec I-FOLD-7 --coverage = exit %d, %q; want exit 2", code, stderr)
	}
}
