package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Reference: I-PERF-10 — the front links the reference fold, cobra and the standard library, and
// none of what the other verbs need: the kits and their test libraries, the stores and their
// drivers, certify, the bridge. A verb whose package slips in here is paid for by every start.
func TestFrontLinksOnlyTheFold(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"pgregory.net/rapid", "github.com/google/go-cmp", "modernc.org/", "github.com/jackc/",
		"github.com/loom-kernel/loom-conform/certify", "github.com/loom-kernel/loom-conform/kits",
		"github.com/loom-kernel/loom-conform/reference/kernel", "github.com/loom-kernel/loom-conform/reference/stores",
		"github.com/loom-kernel/loom-conform/wire", "github.com/loom-kernel/loom-conform/internal/redact",
		"net/http",
	}
	for _, p := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if p == f || strings.HasPrefix(p, strings.TrimSuffix(f, "/")+"/") {
				t.Errorf("cli/front-deps [I-PERF-10]: go list -deps ./cmd/loom-conform has %s, want none of %s", p, f)
			}
		}
	}
}

// buildPair builds the front and the full binary into one fresh directory, as make build does.
func buildPair(t *testing.T) (front, full string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds both binaries (about a minute on a cold cache); not with -short")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".", "../loom-conform-full")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "loom-conform"), filepath.Join(dir, "loom-conform-full")
}

// result is what a run printed and how it ended.
type result struct {
	code           int
	stdout, stderr string
}

func runBin(t *testing.T, env []string, stdin string, bin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return result{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
}

// Reference: I-PERF-10 — the two binaries are one command line: every verb answers through the
// front exactly as through the full binary (output, error, exit code, stdin), whether the front
// serves it or hands it over, and the front finds the full binary beside it under its own name
// (make build, go install), under a release's names, through $LOOM_CONFORM_FULL, and says how to
// install it when it is nowhere.
func TestFrontAnswersAsTheFullBinary(t *testing.T) {
	front, full := buildPair(t)
	bare := []string{"PATH=" + t.TempDir()} // neither PATH nor $LOOM_CONFORM_FULL: beside it only
	log := `{"executionId":"e","sequence":1,"type":"EXECUTION_STARTED","payload":{"input":{}},"metadata":{}}` + "\n"
	cases := []struct {
		stdin string
		args  []string
	}{
		{"", []string{"version"}},
		{"", []string{"--version"}},
		{"", []string{"fold", "--help"}},
		{log, []string{"fold"}},
		{"{", []string{"fold"}},
		{"", []string{"digest", "--segment", "0", "--event-type", "T", "--payload", `{"a":1}`}},
		{"", []string{"digest"}},
		{"", []string{"fold", "--bogus"}},
		{"", nil},
		{"", []string{"--help"}},
		{"", []string{"spec", "--help"}},
		{"", []string{"compat", "1.0.0", "2.0.0"}},
		{"", []string{"compat", "not-a-version"}},
		{"", []string{"certify", "--bogus"}},
		{"", []string{"no-such-verb"}},
		{"", []string{"__complete", "cert"}},
		{log, []string{"vectors", "--help"}},
	}
	for _, c := range cases {
		got, want := runBin(t, bare, c.stdin, front, c.args...), runBin(t, bare, c.stdin, full, c.args...)
		if got != want {
			t.Errorf("cli/front-delegates [I-PERF-10]: loom-conform %q = %+v, want what loom-conform-full answers, %+v", c.args, got, want)
		}
	}

	// A release's names: the front finds the full binary of the same version and platform.
	dir := t.TempDir()
	for src, dst := range map[string]string{front: "loom-conform_9.9.9_linux_amd64", full: "loom-conform-full_9.9.9_linux_amd64"} {
		if err := os.Link(src, filepath.Join(dir, dst)); err != nil {
			t.Fatal(err)
		}
	}
	if r := runBin(t, bare, "", filepath.Join(dir, "loom-conform_9.9.9_linux_amd64"), "spec", "--help"); r.code != 0 {
		t.Errorf("cli/front-delegates [I-PERF-10]: loom-conform_9.9.9_linux_amd64 spec --help = %+v, want the full binary beside it to answer", r)
	}

	// Alone: the verbs it serves still work; the others say what is missing and how to install it.
	alone := filepath.Join(t.TempDir(), "loom-conform")
	if err := os.Link(front, alone); err != nil {
		t.Fatal(err)
	}
	if r := runBin(t, bare, "", alone, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "loom-conform ") {
		t.Errorf("cli/front-delegates [I-PERF-10]: loom-conform version (alone) = %+v, want the version line", r)
	}
	r := runBin(t, bare, "", alone, "certify", "all", "--builtin", "sqlite")
	if r.code != 2 || !strings.Contains(r.stderr, "loom-conform-full") || !strings.Contains(r.stderr, "go install github.com/loom-kernel/loom-conform/cmd/...") {
		t.Errorf("cli/front-delegates [I-PERF-10]: loom-conform certify (alone) = %+v, want exit 2 naming loom-conform-full and how to install it", r)
	}
	if r := runBin(t, append(bare, FullEnv+"="+full), "", alone, "spec", "--help"); r.code != 0 {
		t.Errorf("cli/front-delegates [I-PERF-10]: loom-conform spec --help with $%s = %+v, want the full binary it names to answer", FullEnv, r)
	}
	if r := runBin(t, append(bare, FullEnv+"="+filepath.Join(dir, "nothing")), "", alone, "spec"); r.code != 2 || !strings.Contains(r.stderr, FullEnv) {
		t.Errorf("cli/front-delegates [I-PERF-10]: loom-conform spec with $%s naming no file = %+v, want exit 2 naming the variable", FullEnv, r)
	}
}

// The full binary's name beside a front, whatever the front is called.
func TestFullName(t *testing.T) {
	for self, want := range map[string]string{
		"loom-conform":                         "loom-conform-full",
		"loom-conform.exe":                     "loom-conform-full.exe",
		"loom-conform_1.2.0_linux_amd64":       "loom-conform-full_1.2.0_linux_amd64",
		"loom-conform_1.2.0_windows_arm64.exe": "loom-conform-full_1.2.0_windows_arm64.exe",
		"lc":                                   fullName("x"),
		"loom-conform-full":                    fullName("x"),
	} {
		if got := fullName(self); got != want {
			t.Errorf("fullName(%q) = %q, want %q", self, got, want)
		}
	}
}
