package proof

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// Reference: issue — a hand-written record with evidence "x" made spec --coverage --strict pass.
// A record counts only when it is of this build, names a check the mutant is registered to be
// caught by, and carries that check's own failure.
func TestScreenRefusesForgedRecords(t *testing.T) {
	ms := []spec.Mutant{{ID: "m/1", CaughtBy: []string{"c/a", "c/b"}}}
	good := Record{Mutant: "m/1", Check: "c/a", Test: "T", Evidence: "c/a [I-X]: Op() = 1, want 2", Build: "src:1"}
	cases := map[string]Record{
		"evidence x":       {Mutant: "m/1", Check: "c/a", Test: "T", Evidence: "x", Build: "src:1"},
		"another check's":  {Mutant: "m/1", Check: "c/a", Test: "T", Evidence: "c/b [I-X]: Op() = 1", Build: "src:1"},
		"not a catcher":    {Mutant: "m/1", Check: "c/z", Test: "T", Evidence: "c/z: failed", Build: "src:1"},
		"another build":    {Mutant: "m/1", Check: "c/a", Test: "T", Evidence: "c/a: failed", Build: "src:2"},
		"no build at all":  {Mutant: "m/1", Check: "c/a", Test: "T", Evidence: "c/a: failed"},
		"check id as stem": {Mutant: "m/1", Check: "c/a", Test: "T", Evidence: "c/ab [I-X]: failed", Build: "src:1"},
	}
	for name, r := range cases {
		kept, refused := Screen([]Record{good, r}, "src:1", ms)
		if len(kept) != 1 || len(refused) != 1 {
			t.Errorf("Screen(%s) kept %d, refused %q; want the forged record refused, named", name, len(kept), refused)
		}
	}
	if kept, refused := Screen([]Record{{Mutant: "unregistered", Check: "c/q", Evidence: "c/q: x", Build: "src:1"}}, "src:1", ms); len(kept) != 1 || len(refused) != 0 {
		t.Errorf("a record of an unregistered mutant is for coverage to report, got kept %v refused %v", kept, refused)
	}
}

// The build id changes with the code and the data, not with prose or outputs.
func TestBuildIDFollowsTheCode(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("a/a.go", "package a\n")
	write("a/testdata/v.json", "{}")
	id := func() string {
		s, err := BuildID(root)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := id()
	write("README.md", "words")
	write("test-results/proofs/run-1/p.jsonl", "{}")
	write("bin/tool.go", "package main")
	if id() != base {
		t.Errorf("BuildID changed with prose or outputs")
	}
	write("a/a.go", "package a\n// changed\n")
	if id() == base {
		t.Errorf("BuildID did not change with the code")
	}
	code := id()
	write("a/testdata/v.json", "[]")
	if id() == code || !strings.HasPrefix(id(), "src:") {
		t.Errorf("BuildID did not change with the data the tests read, or lost its prefix")
	}
	if m, err := ModuleRoot(filepath.Join(root, "a", "testdata")); err != nil || m != root {
		t.Errorf("ModuleRoot = %q, %v; want %q", m, err, root)
	}
}

// Rejected refuses evidence that is not the named check's own failure, so a wrong check id at a
// call site fails its test at once.
func TestRejectedWantsTheChecksOwnFailure(t *testing.T) {
	t.Setenv(Env, "")
	f := &fakeT{TB: t}
	Rejected(f, "m/1", "c/a", errors.New("c/b [X]: Op() = 1, want 2"))
	if !f.failed {
		t.Error("Rejected(evidence of c/b for check c/a) did not fail the test")
	}
	if got := Failure("c/a", []string{"X"}, "Check(m)", errors.New("no")); !EvidenceOf("c/a", got) {
		t.Errorf("Failure = %q, not in the grammar", got)
	}
	if got := Failure("c/a", nil, "Check(m)", nil); got != "" {
		t.Errorf("Failure(nil) = %q, want \"\" so a survivor is not recorded as a kill", got)
	}
}
