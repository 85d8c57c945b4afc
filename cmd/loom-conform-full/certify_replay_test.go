package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// certify --findings writes the exploration's finding as a replayable file, its reproduce line
// replays that file, and --replay prints the same failure against the broken store and "no longer
// reproduces" against a correct one.
func TestCertifyFindingsAndReplay(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	code, _, stderr := runCLI(t, "", "certify", "snapshotstore", "--builtin", "broken:first-write-wins",
		"--run", "^snapshotstore/explore$", "--seed", "3", "--explore", "10", "--findings", dir, "--report", report)
	if code != 1 {
		t.Fatalf("certify (a broken store, explored) exit %d, want 1\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "snapshotstore-explore-3-*.json"))
	if len(files) != 1 {
		t.Fatalf("--findings %s holds %v, want one snapshotstore-explore-3-<round>.json\n%s", dir, files, stderr)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	s, err := explore.ParseScript(data)
	if err != nil || s.Check != "snapshotstore/explore" || s.Seed != 3 || len(s.Steps) == 0 {
		t.Fatalf("ParseScript(%s) = %+v, %v, want the check's script", files[0], s, err)
	}
	var rep struct {
		Checks []struct {
			ID, Repro, FindingFile string
			Finding                *explore.Finding
		} `json:"checks"`
	}
	b, _ := os.ReadFile(report)
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Checks) != 1 || rep.Checks[0].Finding == nil || rep.Checks[0].FindingFile != files[0] {
		t.Fatalf("--report: the check carries no finding and file: %s", b)
	}
	if want := "--replay " + files[0]; !strings.Contains(rep.Checks[0].Repro, want) {
		t.Errorf("repro = %q, want it to replay the finding (%q)", rep.Checks[0].Repro, want)
	}

	code, _, stderr = runCLI(t, "", "certify", "snapshotstore", "--builtin", "broken:first-write-wins", "--replay", files[0])
	if code != 1 || !strings.Contains(stderr, "snapshotstore/explore reproduces") || !strings.Contains(stderr, "replayed script") {
		t.Errorf("--replay against the broken store: exit %d, want 1 and the same failure\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "certify", "snapshotstore", "--builtin", "memory", "--replay", files[0])
	if code != 5 || !strings.Contains(stderr, "no longer reproduces") {
		t.Errorf("--replay against the reference: exit %d, want 5 (partial) and \"no longer reproduces\"\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "certify", "snapshotstore", "--builtin", "memory", "--replay", files[0], "--run", "^eventstore/")
	if code != 2 {
		t.Errorf("--replay with a --run that leaves its check out: exit %d, want 2\n%s", code, stderr)
	}
}

// certify kernel writes kernel/explore's finding with --findings, its repro replays that file, and
// --replay reproduces it against the broken kernel and no longer against the reference.
func TestCertifyKernelFindingsAndReplay(t *testing.T) {
	bad, err := kernelkit.NewBroken("parallel-reversed", memory.NewEventStore(), carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bsrv := httptest.NewServer(bad)
	defer bsrv.Close()
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	code, _, stderr := runCLI(t, "", "certify", "kernel", "--url", bsrv.URL+"/", "--run", "^kernel/explore$", "--seed", "1", "--explore", "12", "--findings", dir, "--report", report)
	if code != 1 {
		t.Fatalf("certify kernel (parallel-reversed, explored) exit %d, want 1\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "kernel-explore-1-*.json"))
	if len(files) != 1 {
		t.Fatalf("--findings %s holds %v, want one kernel-explore-1-<round>.json\n%s", dir, files, stderr)
	}
	b, _ := os.ReadFile(report)
	var rep struct {
		Checks []struct{ ID, Repro, FindingFile string } `json:"checks"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Checks) != 1 || rep.Checks[0].FindingFile != files[0] || !strings.Contains(rep.Checks[0].Repro, "--replay "+files[0]) {
		t.Fatalf("--report: the check carries no finding file or a repro that does not replay it: %s", b)
	}
	code, _, stderr = runCLI(t, "", "certify", "kernel", "--url", bsrv.URL+"/", "--replay", files[0])
	if code != 1 || !strings.Contains(stderr, "kernel/explore reproduces") {
		t.Errorf("--replay against the broken kernel: exit %d, want 1 and the same failure\n%s", code, stderr)
	}
	ref, _, err := carrier.NewProfile(memory.NewEventStore(), false, carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ref)
	defer srv.Close()
	code, _, stderr = runCLI(t, "", "certify", "kernel", "--url", srv.URL+"/", "--replay", files[0])
	if code != 5 || !strings.Contains(stderr, "no longer reproduces") {
		t.Errorf("--replay against the reference kernel: exit %d, want 5 (partial) and \"no longer reproduces\"\n%s", code, stderr)
	}
}
