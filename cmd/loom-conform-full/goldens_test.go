package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const corpusDir = "../../goldens/corpus"

// copyGolden copies one corpus golden into a fresh corpus directory and returns both paths.
func copyGolden(t *testing.T, name string) (corpus, dir string) {
	t.Helper()
	corpus = t.TempDir()
	dir = filepath.Join(corpus, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(corpusDir, name, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return corpus, dir
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s holds no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Reference: spec §10 — goldens check exits 0 on the corpus, 1 naming the golden and the first
// divergence, 2 on bad input naming file, statement and field; nothing is written on error, and
// only --update re-records.
func TestGoldensCheckCLI(t *testing.T) {
	code, out, stderr := runCLI(t, "", "goldens", "check", "--corpus", corpusDir, "--run", "^(suspend-resume|profile-1-20)$")
	if code != 0 || !strings.Contains(out, "2 checked, 2 passed") {
		t.Fatalf("goldens check = exit %d, %q %q; want 0 and 2 passed", code, out, stderr)
	}

	// A recorded log that the kernel no longer writes: exit 1 naming the golden and the envelope.
	corpus, dir := copyGolden(t, "suspend-resume")
	edit(t, filepath.Join(dir, "log.ndjson"), `{"by":"ann"}`, `{"by":"bob"}`)
	junit := filepath.Join(t.TempDir(), "g.xml")
	code, out, _ = runCLI(t, "", "goldens", "check", "--corpus", corpus, "--junit", junit)
	if code != 1 || !strings.Contains(out, "goldens/suspend-resume [") || !strings.Contains(out, "differs at /payload") {
		t.Errorf("goldens check (tampered log) = exit %d, %q; want 1 naming the golden and a JSON Pointer", code, out)
	}
	if b, err := os.ReadFile(junit); err != nil || !strings.Contains(string(b), `<failure message="goldens/suspend-resume`) {
		t.Errorf("goldens check --junit wrote %q, %v; want a failure for suspend-resume", b, err)
	}
	code, out, _ = runCLI(t, "", "goldens", "check", "--corpus", corpus, "--json")
	var rep struct {
		Kind    string
		Results []struct {
			Name     string
			Verdict  string
			Problems []struct{ Stage string }
		}
	}
	if code != 1 || json.Unmarshal([]byte(out), &rep) != nil || rep.Kind != "goldens" || len(rep.Results) != 1 || rep.Results[0].Verdict != "fail" {
		t.Errorf("goldens check --json = exit %d, %q; want 1 and one failed result", code, out)
	}

	// --update re-records it (the flag is the only way), then check passes.
	if code, out, _ := runCLI(t, "", "goldens", "check", "--corpus", corpus, "--update"); code != 0 || !strings.Contains(out, "recorded suspend-resume") {
		t.Errorf("goldens check --update = exit %d, %q; want 0, recorded", code, out)
	}
	if code, _, _ := runCLI(t, "", "goldens", "check", "--corpus", corpus); code != 0 {
		t.Errorf("goldens check after --update = exit %d, want 0", code)
	}

	// Bad input: exit 2 naming file, statement and field; nothing is written.
	edit(t, filepath.Join(dir, "flow.json"), `"op": "suspend"`, `"op": "fork"`)
	before, _ := os.ReadFile(filepath.Join(dir, "log.ndjson"))
	for _, args := range [][]string{
		{"goldens", "check", "--corpus", corpus},
		{"goldens", "check", "--corpus", corpus, "--update"},
		{"goldens", "record", "--corpus", corpus, "suspend-resume"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, "flow.json: body[1]: field \"op\": unknown syscall \"fork\"") {
			t.Errorf("loom-conform %v (bad flow) = exit %d, %q; want 2 naming flow.json body[1] op", args, code, stderr)
		}
	}
	after, _ := os.ReadFile(filepath.Join(dir, "log.ndjson"))
	if string(before) != string(after) {
		t.Errorf("goldens: a refused run rewrote log.ndjson")
	}
	if code, _, stderr := runCLI(t, "", "goldens", "check", "--corpus", corpusDir, "--run", "("); code != 2 || !strings.Contains(stderr, "--run") {
		t.Errorf("goldens check --run ( = exit %d, %q; want 2", code, stderr)
	}
}

// Reference: spec §10 — replay exits 0 when a recorded execution is unchanged, 1 with the first
// divergence, 2 on bad input (non-dense log, a log of another execution or flow, a bad script).
func TestReplayCLI(t *testing.T) {
	g := filepath.Join(corpusDir, "profile-1-20")
	flow, driver, log := filepath.Join(g, "flow.json"), filepath.Join(g, "driver.json"), filepath.Join(g, "log.ndjson")
	if code, out, stderr := runCLI(t, "", "replay", "--script", flow, "--driver", driver, log); code != 0 || !strings.Contains(out, "replay unchanged") {
		t.Fatalf("replay (profile 1.20.0 golden) = exit %d, %q %q; want 0", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "", "replay", "--script", flow, log); code != 0 {
		t.Errorf("replay without a driver = exit %d, %q; want 0", code, stderr)
	}
	_, dir := copyGolden(t, "profile-1-20")
	tl := filepath.Join(dir, "log.ndjson")
	edit(t, tl, `"output":{"a":{"p":"1.20.0"}`, `"output":{"a":{"p":"changed"}`)
	if code, _, stderr := runCLI(t, "", "replay", "--script", flow, "--driver", driver, tl); code != 1 || !strings.Contains(stderr, "diverged") {
		t.Errorf("replay (changed output) = exit %d, %q; want 1", code, stderr)
	}
	_, dir = copyGolden(t, "profile-1-20")
	edit(t, filepath.Join(dir, "log.ndjson"), `"sequence":3`, `"sequence":4`)
	if code, _, stderr := runCLI(t, "", "replay", "--script", flow, filepath.Join(dir, "log.ndjson")); code != 2 || !strings.Contains(stderr, `envelope 3: field "sequence"`) {
		t.Errorf("replay (non-dense) = exit %d, %q; want 2 naming envelope 3 sequence", code, stderr)
	}
	other := filepath.Join(corpusDir, "basic-echo", "log.ndjson")
	if code, _, stderr := runCLI(t, "", "replay", "--script", flow, other); code != 2 || !strings.Contains(stderr, `envelope 0: field "workflowId"`) {
		t.Errorf("replay (another flow's log) = exit %d, %q; want 2 naming workflowId", code, stderr)
	}
	_, dir = copyGolden(t, "profile-1-20")
	edit(t, filepath.Join(dir, "driver.json"), `"actions"`, `"execution": "e7", "actions"`)
	if code, _, stderr := runCLI(t, "", "replay", "--script", flow, "--driver", filepath.Join(dir, "driver.json"), log); code != 2 || !strings.Contains(stderr, `field "executionId"`) {
		t.Errorf("replay (another execution's log) = exit %d, %q; want 2 naming executionId", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "replay", log); code != 2 || !strings.Contains(stderr, "--script") {
		t.Errorf("replay without --script = exit %d, %q; want 2", code, stderr)
	}
	// replay diff: the first divergence between two logs.
	if code, out, _ := runCLI(t, "", "replay", "diff", log, tl); code != 1 || !strings.Contains(out, "/payload/output/a/p") {
		t.Errorf("replay diff = exit %d, %q; want 1 at /payload/output/a/p", code, out)
	}
	if code, out, _ := runCLI(t, "", "replay", "diff", log, log); code != 0 || !strings.Contains(out, "same") {
		t.Errorf("replay diff (same) = exit %d, %q; want 0", code, out)
	}
	st := filepath.Join(g, "state.json")
	if code, _, _ := runCLI(t, "", "replay", "diff", "--state", st, filepath.Join(corpusDir, "basic-echo", "state.json")); code != 1 {
		t.Errorf("replay diff --state = exit %d, want 1", code)
	}
	if code, _, stderr := runCLI(t, "", "replay", "diff", log, flow); code != 2 || !strings.Contains(stderr, "flow.json") {
		t.Errorf("replay diff (not a log) = exit %d, %q; want 2 naming the file", code, stderr)
	}
}
