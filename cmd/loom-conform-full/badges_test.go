package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/internal/svgbadge"
)

// Reference: spec §10 — maturity is self-checking: the repository's own capabilities.json resolves,
// a claim without evidence fails naming the capability and the claim, a malformed file is bad
// input, and render draws one badge per capability.
func TestBadgesCLI(t *testing.T) {
	t.Setenv(proof.Env, "") // judge against the registry, not the records a running suite is still writing
	code, out, stderr := runCLI(t, "", "badges", "check", "--root", "../..", "../../capabilities.json")
	if code != 0 || !strings.Contains(out, "registered mutants") {
		t.Fatalf("badges check capabilities.json = exit %d\n%s%s; want 0 (the repository's claims all hold)", code, out, stderr)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "caps.json")
	if err := os.WriteFile(bad, []byte(`{"format":"loom-capabilities/1","subject":"s","capabilities":[
		{"id":"syscall/execute","title":"execute","maturity":"stable","evidence":{"versions":["syscall:execute"],"checks":["kernel/not-a-check"],"goldens":["no-such-golden"]}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "", "badges", "check", "--root", "../..", bad)
	for _, want := range []string{"Resolve(syscall/execute, checks:kernel/not-a-check)", "goldens:no-such-golden", "maturity:stable"} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("badges check (claims without evidence) = exit %d\n%s; want exit 1 naming %s", code, out, want)
		}
	}
	if err := os.WriteFile(bad, []byte(`{"format":"loom-capabilities/1","capabilities":[{"id":"x"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", "badges", "check", bad); code != 2 || !strings.Contains(stderr, "caps.json") {
		t.Errorf("badges check (malformed) = exit %d, %q; want exit 2 naming the file", code, stderr)
	}
	out2 := filepath.Join(dir, "svg")
	if code, _, stderr := runCLI(t, "", "badges", "render", "--out", out2, "../../capabilities.json"); code != 0 {
		t.Fatalf("badges render = exit %d: %s", code, stderr)
	}
	svg, err := os.ReadFile(filepath.Join(out2, "syscall-execute.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := svgbadge.Parse(svg); err != nil || b.Label != "loom syscall/execute" || b.Digest == "" {
		t.Errorf("badges render: syscall-execute.svg = %+v, %v; want a loom syscall/execute badge with a digest", b, err)
	}
}
