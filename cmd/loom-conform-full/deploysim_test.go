package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reference: spec §10 deploy simulation — the verb runs a seed, writes JUnit, exits 2 on bad flags.
func TestDeploysimCLI(t *testing.T) {
	junitFile := filepath.Join(t.TempDir(), "ds.xml")
	code, out, stderr := runCLI(t, "", "deploysim", "--scenario", "crash", "--seed", "3", "--junit", junitFile)
	if code != 0 || !strings.Contains(out, "crash") || !strings.Contains(out, "0 failed") {
		t.Fatalf("deploysim --scenario crash --seed 3 = exit %d, stdout %q, stderr %q; want exit 0", code, out, stderr)
	}
	b, err := os.ReadFile(junitFile)
	if err != nil || !strings.Contains(string(b), `name="seed-3"`) {
		t.Fatalf("--junit wrote %q (%v), want a case seed-3", b, err)
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"deploysim", "--scenario", "nope"}, "unknown scenario"},
		{[]string{"deploysim", "--seeds", "0"}, "--seeds 0"},
		{[]string{"deploysim", "--workers", "100"}, "--workers 100"},
		{[]string{"deploysim", "--workers", "0"}, "--workers 0"},
		{[]string{"deploysim", "--real", "--workers", "0"}, "--workers 0"},
		{[]string{"deploysim", "--seeds", "5", "--seed", "3"}, "give one of them"},
		// the report path is checked before the run, not after it
		{[]string{"deploysim", "--seed", "3", "--junit", filepath.Join(t.TempDir(), "no", "dir", "x.xml")}, "--junit"},
	} {
		if code, _, stderr := runCLI(t, "", c.args...); code != 2 || !strings.Contains(stderr, c.err) {
			t.Errorf("loom-conform %v = exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.err)
		}
	}
}
