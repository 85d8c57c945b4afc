package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Reference: ADR 0026, I-VECTOR-8 — `vectors fuzz`: exit 0 when the folds agree, 1 with a
// shrunk vector file and a reproduce line that finds the same seed again, 2 on bad flags.
func TestVectorsFuzzCommand(t *testing.T) {
	for _, args := range [][]string{
		{"vectors", "fuzz"},
		{"vectors", "fuzz", "--exec", "x", "--count", "0"},
		{"vectors", "fuzz", "--exec", "x", "--profile", "1.9.0"},
		{"vectors", "fuzz", "--exec", "x", "--out", filepath.Join(t.TempDir(), "missing")},
		{"vectors", "fuzz", "--exec", "'unterminated"},
	} {
		if code, _, stderr := runCLI(t, "", args...); code != 2 {
			t.Errorf("cli/vectors-fuzz [I-VECTOR-8]: loom-conform %q = exit %d (%s), want 2", args, code, stderr)
		}
	}
	// Reference: issue 24 — a fold that exits is "the foreign fold failed" (exit 3), not a
	// disagreement, and no vector is written.
	dir0 := t.TempDir()
	code, stdout, _ := runCLI(t, "", "vectors", "fuzz", "--exec", `sh -c "echo boom >&2; exit 7"`, "--count", "5", "--out", dir0)
	if entries, _ := os.ReadDir(dir0); code != 3 || !strings.Contains(stdout, "FOREIGN FOLD FAILED") || !strings.Contains(stdout, "exit status 7") ||
		!strings.Contains(stdout, `"boom"`) || strings.Contains(stdout, "DISAGREE") || len(entries) != 0 {
		t.Errorf("cli/vectors-fuzz: vectors fuzz --exec (exits 7) = exit %d, %d file(s)\n%s\nwant exit 3, the exit status and stderr, no disagreement", code, len(entries), stdout)
	}
	bin := buildCLI(t)
	code, stdout, stderr := runCLI(t, "", "vectors", "fuzz", "--exec", `"`+bin+`" vectors --serve`, "--count", "300", "--seed", "5")
	if code != 0 || !strings.Contains(stdout, "PASS: 300 log(s), 0 disagree in 0 class(es)") {
		t.Errorf("cli/vectors-fuzz [I-VECTOR-8]: vectors fuzz (reference vs vectors --serve) = exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Reference: I-PERF-12 — the summary says how much of the run was starting the fold process.
	if !regexp.MustCompile(`(?m)^processes: 1 fold process\(es\) started; start-up \(start to first answer\) \S+ of the run's \S+ \([0-9.]+ %\)$`).MatchString(stdout) {
		t.Errorf("cli/vectors-fuzz [I-PERF-12]: vectors fuzz summary = \n%s\nwant a line of the processes started and their start-up", stdout)
	}

	ff := filepath.Join(t.TempDir(), "foreignfold")
	if out, err := exec.Command("go", "build", "-o", ff, "../../vectors/testdata/foreignfold").CombinedOutput(); err != nil {
		t.Fatalf("go build foreignfold: %v\n%s", err, out)
	}
	dir := t.TempDir()
	under := `"` + ff + `" -bug strict-integers`
	code, stdout, _ = runCLI(t, "", "vectors", "fuzz", "--exec", under, "--count", "10000", "--out", dir)
	m := regexp.MustCompile(`(?m)^reproduce: loom-conform (vectors fuzz --exec .* --seed (\d+) --count 1 --profile (\S+))$`).FindStringSubmatch(stdout)
	if code != 1 || m == nil {
		t.Fatalf("cli/vectors-fuzz [I-VECTOR-8]: vectors fuzz (strict-integers) = exit %d\n%s\nwant exit 1 and a reproduce line", code, stdout)
	}
	file := filepath.Join(dir, "fuzz-seed-"+m[2]+".json")
	if _, err := os.Stat(file); err != nil {
		t.Errorf("cli/vectors-fuzz [I-VECTOR-8]: vector file: %v", err)
	}
	os.Remove(file)
	code, again, _ := runCLI(t, "", "vectors", "fuzz", "--exec", under, "--seed", m[2], "--count", "1", "--profile", m[3], "--out", dir)
	if _, err := os.Stat(file); code != 1 || err != nil || !strings.Contains(again, "(seed "+m[2]+",") {
		t.Errorf("cli/vectors-fuzz [I-VECTOR-8]: the reproduce command = exit %d, file %v\n%s\nwant the same finding", code, err, again)
	}
}
