package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Reference: spec §10 (gated in CI) — sharded fitness runs merge into the report of one run, and a
// merge of an incomplete split is refused.
func TestReportMergeFitnessShards(t *testing.T) {
	dir := t.TempDir()
	args := []string{"fitness", "--root", "../..", "--run", "^(coverage/must|badges/evidence)$"}
	run := func(extra ...string) {
		t.Helper()
		if code, out, stderr := runCLI(t, "", append(append([]string{}, args...), extra...)...); code != 0 {
			t.Fatalf("fitness %v = exit %d\n%s%s", extra, code, out, stderr)
		}
	}
	whole := filepath.Join(dir, "whole.json")
	run("--json", whole)
	var parts []string
	for _, s := range []string{"1/3", "2/3", "3/3"} {
		p := filepath.Join(dir, strings.ReplaceAll(s, "/", "-")+".json")
		run("--shard", s, "--json", p)
		parts = append(parts, p)
	}
	merged := filepath.Join(dir, "merged.json")
	if code, _, stderr := runCLI(t, "", append([]string{"report", "merge", "--out", merged}, parts...)...); code != 0 {
		t.Fatalf("report merge = exit %d: %s", code, stderr)
	}
	load := func(p string) map[string]any {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		for _, r := range m["results"].([]any) {
			delete(r.(map[string]any), "seconds")
		}
		return m
	}
	if diff := cmp.Diff(load(whole), load(merged)); diff != "" {
		t.Errorf("report merge of 3 fitness shards differs from one run (-want +got):\n%s", diff)
	}
	if code, _, stderr := runCLI(t, "", "report", "merge", parts[0], parts[2]); code != 2 || !strings.Contains(stderr, "2/3") {
		t.Errorf("report merge (shard 2/3 missing) = exit %d, %q; want exit 2 naming 2/3", code, stderr)
	}
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte(`{"results":[]}`), 0o644)
	if code, _, stderr := runCLI(t, "", "report", "merge", junk); code != 2 || !strings.Contains(stderr, "kind") {
		t.Errorf("report merge (no kind) = exit %d, %q; want exit 2", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "fitness", "--shard", "5/4"); code != 2 || !strings.Contains(stderr, "--shard") {
		t.Errorf("fitness --shard 5/4 = exit %d, %q; want exit 2", code, stderr)
	}
}
