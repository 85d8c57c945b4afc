package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shardsVsOne runs a verb once whole and as three shards (each writing its JSON report to the path
// passed after the report flag), merges the shards with report merge, and returns both documents
// with timings removed, and the merge's exit code. With reportFlag "" the verb prints its report on
// stdout.
func shardsVsOne(t *testing.T, verb []string, reportFlag string, timings ...string) (one, merged map[string]any, code int, parts []string) {
	t.Helper()
	dir := t.TempDir()
	run := func(out string, extra ...string) {
		t.Helper()
		args := append(append([]string{}, verb...), extra...)
		if reportFlag != "" {
			args = append(args, reportFlag, out)
		}
		c, o, e := runCLI(t, "", args...)
		if c != 0 && c != 1 {
			t.Fatalf("%v = exit %d\n%s%s", args, c, o, e)
		}
		if reportFlag == "" {
			if err := os.WriteFile(out, []byte(o), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	whole := filepath.Join(dir, "whole.json")
	run(whole)
	for _, s := range []string{"1/3", "2/3", "3/3"} {
		p := filepath.Join(dir, strings.ReplaceAll(s, "/", "-")+".json")
		run(p, "--shard", s)
		parts = append(parts, p)
	}
	m := filepath.Join(dir, "merged.json")
	code, _, stderr := runCLI(t, "", append([]string{"report", "merge", "--out", m}, parts...)...)
	if code == 2 {
		t.Fatalf("report merge = exit 2: %s", stderr)
	}
	return loadUntimed(t, whole, timings), loadUntimed(t, m, timings), code, parts
}

// loadUntimed reads a JSON document and deletes every key named in timings, at any depth.
func loadUntimed(t *testing.T, p string, timings []string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	var strip func(v any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range timings {
				delete(x, k)
			}
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(m)
	return m
}

// Reference: spec §10 (gated in CI), I-SHARD-1..3 — sharded vectors runs merge into the report one
// run gives, and reports of different runs or kinds are refused.
func TestReportMergeVectorsShards(t *testing.T) {
	verb := []string{"vectors", "--quiet", "--run", "^(canonical|digest)/"}
	one, merged, code, parts := shardsVsOne(t, verb, "--report", "elapsedMs", "durationMs")
	if code != 0 {
		t.Errorf("report merge of passing vectors shards = exit %d, want 0", code)
	}
	if diff := cmp.Diff(one, merged); diff != "" {
		t.Errorf("report merge of 3 vectors shards differs from one run (-want +got):\n%s", diff)
	}
	if one["pass"].(float64) < 10 {
		t.Errorf("the whole run passed %v vectors, want a real run", one["pass"])
	}
	other := filepath.Join(t.TempDir(), "other.json")
	runCLI(t, "", "vectors", "--quiet", "--run", "^canonical/", "--shard", "2/3", "--report", other)
	if c, _, stderr := runCLI(t, "", "report", "merge", parts[0], other, parts[2]); c != 2 || !strings.Contains(stderr, "run") {
		t.Errorf("report merge (a shard of another --run) = exit %d, %q; want exit 2 naming run", c, stderr)
	}
	fit := filepath.Join(t.TempDir(), "fit.json")
	os.WriteFile(fit, []byte(`{"kind":"fitness","shard":"2/3","results":[]}`), 0o644)
	if c, _, stderr := runCLI(t, "", "report", "merge", parts[0], fit, parts[2]); c != 2 || !strings.Contains(stderr, "fitness") {
		t.Errorf("report merge (a fitness report among vectors reports) = exit %d, %q; want exit 2", c, stderr)
	}
	if c, _, stderr := runCLI(t, "", "vectors", "--shard", "0/3"); c != 2 || !strings.Contains(stderr, "--shard") {
		t.Errorf("vectors --shard 0/3 = exit %d, %q; want exit 2", c, stderr)
	}
}

// Reference: spec §10, I-SHARD-1..3 — sharded goldens checks merge into the report one run gives, a
// broken golden fails the merged run as it fails one run, and a partial split is refused.
func TestReportMergeGoldensShards(t *testing.T) {
	corpus, dir := copyGolden(t, "suspend-resume")
	edit(t, filepath.Join(dir, "log.ndjson"), `{"by":"ann"}`, `{"by":"bob"}`)
	for _, c := range []struct {
		corpus string
		code   int
	}{{corpusDir, 0}, {corpus, 1}} {
		verb := []string{"goldens", "check", "--corpus", c.corpus, "--no-g2", "--json", "--run", "^(suspend-resume|profile-1-20|timers-.*)$"}
		one, merged, code, parts := shardsVsOne(t, verb, "", "ms")
		if code != c.code {
			t.Errorf("report merge of goldens shards of %s = exit %d, want %d", c.corpus, code, c.code)
		}
		if diff := cmp.Diff(one, merged); diff != "" {
			t.Errorf("report merge of 3 goldens shards differs from one run (-want +got):\n%s", diff)
		}
		if cd, _, stderr := runCLI(t, "", "report", "merge", parts[1], parts[2]); cd != 2 || !strings.Contains(stderr, "1/3") {
			t.Errorf("report merge (shard 1/3 missing) = exit %d, %q; want exit 2 naming 1/3", cd, stderr)
		}
	}
}

// Reference: spec §10, I-SHARD-1..3 — sharded deploysim runs (split by seed) merge into the report
// one run gives; --shard is refused with --real and when malformed.
func TestReportMergeDeploysimShards(t *testing.T) {
	verb := []string{"deploysim", "--scenario", "crash", "--seeds", "7", "--json"}
	one, merged, code, parts := shardsVsOne(t, verb, "")
	if code != 0 {
		t.Errorf("report merge of passing deploysim shards = exit %d, want 0", code)
	}
	if diff := cmp.Diff(one, merged); diff != "" {
		t.Errorf("report merge of 3 deploysim shards differs from one run (-want +got):\n%s", diff)
	}
	if runs, _ := one["runs"].([]any); len(runs) != 7 {
		t.Errorf("the whole run holds %d runs, want 7", len(runs))
	}
	if c, _, stderr := runCLI(t, "", "report", "merge", parts[0], parts[1], parts[1], parts[2]); c != 2 || !strings.Contains(stderr, "two") {
		t.Errorf("report merge (a shard twice) = exit %d, %q; want exit 2", c, stderr)
	}
	for _, args := range [][]string{{"deploysim", "--shard", "4/3"}, {"deploysim", "--real", "--shard", "1/2"}} {
		if c, _, stderr := runCLI(t, "", args...); c != 2 || !strings.Contains(stderr, "--shard") {
			t.Errorf("loom-conform %v = exit %d, %q; want exit 2 naming --shard", args, c, stderr)
		}
	}
}

// Reference: spec §10, I-SHARD-2 — a certify shard of a store that passes exits partial (5) and
// never certified; report merge of every shard concludes the union: certified, exit 0, the same
// verdict and checks as one run. --shard without --seed is refused.
func TestReportMergeCertifyShards(t *testing.T) {
	dir := t.TempDir()
	args := []string{"certify", "eventstore", "--builtin", "memory", "--run", "append", "--seed", "9"}
	whole := filepath.Join(dir, "whole.json")
	if c, _, stderr := runCLI(t, "", append(args, "--report", whole)...); c != 5 {
		t.Fatalf("certify --run append = exit %d, want 5 (partial): %s", c, stderr)
	}
	var parts []string
	for _, s := range []string{"1/2", "2/2"} {
		p := filepath.Join(dir, strings.ReplaceAll(s, "/", "-")+".json")
		badge := p + ".svg"
		if c, _, stderr := runCLI(t, "", append(args, "--shard", s, "--report", p, "--badge", badge)...); c != 5 {
			t.Fatalf("certify --shard %s = exit %d, want 5 (partial): %s", s, c, stderr)
		}
		if svg, _ := os.ReadFile(badge); !strings.Contains(string(svg), "shard "+s) || strings.Contains(string(svg), ">certified<") {
			t.Errorf("badge of shard %s = %q, want it to name the shard and not say certified", s, svg)
		}
		parts = append(parts, p)
	}
	merged := filepath.Join(dir, "merged.json")
	if c, _, stderr := runCLI(t, "", "report", "merge", "--out", merged, parts[0], parts[1]); c != 1 || !strings.Contains(stderr, "did not pass") {
		t.Errorf("report merge of partial shards = exit %d, %q; want 1 (the merged run is partial, as one run is)", c, stderr)
	}
	strip := []string{"durationMs", "started", "url", "pid", "message", "roundTrip"} // roundTrip: a measurement
	one, got := loadUntimed(t, whole, strip), loadUntimed(t, merged, strip)
	if diff := cmp.Diff(one, got); diff != "" {
		t.Errorf("report merge of 2 certify shards differs from one run (-want +got):\n%s", diff)
	}
	if c, _, stderr := runCLI(t, "", "certify", "eventstore", "--builtin", "memory", "--shard", "1/2"); c != 2 || !strings.Contains(stderr, "--seed") {
		t.Errorf("certify --shard without --seed = exit %d, %q; want exit 2 naming --seed", c, stderr)
	}
}
