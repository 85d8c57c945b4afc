package kits_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
)

// goTestStore names the kits/broken store TestGoTestVerdictHelper runs under kits.RunT, in a child
// process of this test binary.
const goTestStore = "LOOM_KITS_TEST_STORE"

// TestGoTestVerdictHelper is the child of TestGoTestGivesCertifyVerdict: it runs one check of the
// EventStore kit against the broken store named in the environment, as a store author's go test
// would. It does nothing in a normal run.
func TestGoTestVerdictHelper(t *testing.T) {
	name := os.Getenv(goTestStore)
	if name == "" {
		return // only TestGoTestGivesCertifyVerdict runs it, as a child process with a store named
	}
	for _, b := range broken.EventStores() {
		if b.Name == name {
			kits.RunT(t, kits.EventStoreKit(), b.Factory(), kits.Options{Run: "^" + regexp.QuoteMeta(b.Catch) + "$", Seed: 3}) // the line failures point at
			return
		}
	}
	t.Fatalf("no broken EventStore %q", name)
}

// go test gives the verdict certify gives (I-CERT-62): a store that breaks only a choice passes
// (its recommendation logged), and fails only under LOOM_KITS_STRICT=1 (Options.Strict); a store
// that breaks a required rule fails, and its failure line names the caller's file and line, never
// a line inside package kits (t.Helper).
func TestGoTestGivesCertifyVerdict(t *testing.T) {
	run := func(store string, env ...string) (string, bool) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestGoTestVerdictHelper$", "-test.v", "-test.count=1")
		cmd.Env = append(append(os.Environ(), goTestStore+"="+store), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	out, ok := run("delete-absent-not-found")
	if !ok || !strings.Contains(out, "recommendation not met") {
		t.Errorf("a store breaking only a choice: go test passed = %v, want true with the recommendation logged\n%s", ok, out)
	}
	if out, ok := run("delete-absent-not-found", "LOOM_KITS_STRICT=1"); ok {
		t.Errorf("a store breaking only a choice under LOOM_KITS_STRICT=1: go test passed, want a failure\n%s", out)
	}
	out, ok = run("overwrite-stale")
	if ok {
		t.Fatalf("a store breaking a required rule: go test passed, want a failure\n%s", out)
	}
	if strings.Contains(out, "testing.go:") || !regexp.MustCompile(`testing_test\.go:\d+: eventstore/append-conflict \[`).MatchString(out) {
		t.Errorf("the failure line does not point at the caller (testing_test.go), or points into package kits:\n%s", out)
	}
}
