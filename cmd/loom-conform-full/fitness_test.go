package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
)

// Reference: spec §10 — the fitness gates are enumerated and gated: the verb lists them, runs a
// selection with the verdicts in the table and the JSON report, and refuses bad flags with exit 2.
func TestFitnessCLI(t *testing.T) {
	code, out, _ := runCLI(t, "", "fitness", "--list")
	if code != 0 || !strings.Contains(out, "g2/ratio") || !strings.Contains(out, "coverage/must") {
		t.Errorf("fitness --list = exit %d, %q; want exit 0 listing every gate", code, out)
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"fitness", "--run", "nothing-matches-this"}, "selects no gate"},
		{[]string{"fitness", "--run", "("}, "--run"},
		{[]string{"fitness", "--rounds", "3"}, "at least 15"},
		{[]string{"fitness", "--root", t.TempDir()}, "module root"},
		{[]string{"fitness", "--root", "../..", "--json", filepath.Join(t.TempDir(), "no", "such", "dir.json")}, "--json"},
	} {
		if code, _, stderr := runCLI(t, "", c.args...); code != 2 || !strings.Contains(stderr, c.err) {
			t.Errorf("loom-conform %v = exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.err)
		}
	}
	// A gate that could not judge (no proof records outside CI) is no pass: exit 1 unless
	// --allow-unknown accepts it.
	t.Run("unknown", func(t *testing.T) {
		t.Setenv("CI", "")
		t.Setenv(proof.Env, "")
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := runCLI(t, "", "fitness", "--root", root, "--run", "^mutants/killed$")
		if code != 1 || !strings.Contains(stderr, "unknown or pending") || !strings.Contains(out, "UNKNOWN") {
			t.Errorf("fitness with an unknown gate = exit %d\n%s\n%s; want exit 1 saying it was not judged", code, out, stderr)
		}
		if code, _, stderr := runCLI(t, "", "fitness", "--root", root, "--run", "^mutants/killed$", "--allow-unknown"); code != 0 {
			t.Errorf("fitness --allow-unknown with an unknown gate = exit %d (%s), want 0", code, stderr)
		}
	})
	report := filepath.Join(t.TempDir(), "fitness.json")
	code, out, stderr := runCLI(t, "", "fitness", "--root", "../..", "--run", "^(coverage/must|mutants/killed)$", "--proofs", t.TempDir(), "--json", report)
	if code != 1 || !strings.Contains(out, "mutants/killed") {
		t.Fatalf("fitness --run coverage/must|mutants/killed with empty proofs = exit %d\n%s\n%s; want exit 1 (no mutant has a recorded kill)", code, out, stderr)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Results []struct{ Gate, Verdict string }
	}
	verdicts := map[string]string{}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	for _, x := range r.Results {
		verdicts[x.Gate] = x.Verdict
	}
	if len(verdicts) != 2 || verdicts["mutants/killed"] != "fail" || verdicts["coverage/must"] != "pass" {
		t.Errorf("fitness --json = %s; want coverage/must pass and mutants/killed fail", raw)
	}
}
