package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// buildCLI builds this command into a temporary directory, for --exec tests that need a real
// subprocess.
func buildCLI(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: the test builds the CLI with it: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "loom-conform")
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

const cliVector = `{"id":"cli/canon","kind":"canonical","reason":"r","clauses":["S3.emit.canonical-form"],"input":"{\"b\":1,\"a\":2}","expect":{"canonical":%s}}`

func writeVector(t *testing.T, dir, name, canonical string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Replace(cliVector, "%s", canonical, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Reference: ADR 0026 T2.3 — exit codes of `loom-conform vectors`: 0 all pass, 1 a failure or an
// untrue ledger, 2 bad input naming the file.
func TestVectorsExitCodes(t *testing.T) {
	good, bad, dup, malformed := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	writeVector(t, good, "v.json", `"{\"a\":2,\"b\":1}"`)
	writeVector(t, bad, "v.json", `"{\"b\":1,\"a\":2}"`)
	writeVector(t, dup, "one.json", `"{\"a\":2,\"b\":1}"`)
	writeVector(t, dup, "two.json", `"{\"a\":2,\"b\":1}"`)
	if err := os.WriteFile(filepath.Join(malformed, "m.json"), []byte(`{"id":"x","kind":"fold"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ledger := filepath.Join(t.TempDir(), "ledger.json")
	if err := os.WriteFile(ledger, []byte(`{"expectedFailures":[{"check":"cli/canon","reason":"known"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	unknownEntry := filepath.Join(t.TempDir(), "unknown.json")
	if err := os.WriteFile(unknownEntry, []byte(`{"expectedFailures":[{"check":"fold/no-such-vector","reason":"typo"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	oldShape := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(oldShape, []byte(`[{"id":"cli/canon","reason":"known"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"vectors", "--quiet"}, 0, ""},
		{[]string{"vectors", "--quiet", "--profile", "1.24.0"}, 0, ""},
		{[]string{"vectors", "--quiet", good}, 0, ""},
		{[]string{"vectors", "--quiet", bad}, 1, "1 failed"},
		{[]string{"vectors", "--quiet", bad, "--expected-failures", ledger}, 0, ""},
		{[]string{"vectors", "--quiet", good, "--expected-failures", ledger}, 1, "1 ledger error"},
		{[]string{"vectors", dup}, 2, "two.json: duplicate vector id"},
		{[]string{"vectors", malformed}, 2, "m.json"},
		{[]string{"vectors", filepath.Join(good, "v.json")}, 2, "not a directory"},
		{[]string{"vectors", "--profile", "1.9.0"}, 2, "--profile"},
		{[]string{"vectors", "--exec", `fold 'open`}, 2, "unterminated"},
		{[]string{"vectors", "--exec", "/nonexistent/fold"}, 2, "--exec"},
		{[]string{"vectors", "--expected-failures", "/nonexistent/ledger.json"}, 2, "--expected-failures"},
		{[]string{"vectors", bad, "--expected-failures", oldShape}, 2, `want {"expectedFailures": [{"check"`},
		{[]string{"vectors", "--quiet", "--run", "^canonical/"}, 0, ""},
		{[]string{"vectors", "--quiet", "--run", "^no-such-vector$"}, 2, `--run "^no-such-vector$" selects no vector (of `},
		{[]string{"vectors", "--quiet", "--expected-failures", unknownEntry}, 2, `"fold/no-such-vector" names no vector of the corpus`},
		{[]string{"vectors", "--run", "("}, 2, "--run"},
		{[]string{"vectors", "--timeout", "-1s"}, 2, "positive"},
		{[]string{"vectors", "--timeout", "0s"}, 2, "positive"},
		{[]string{"vectors", "--report", "/nonexistent/dir/r.json"}, 2, "--report /nonexistent/dir/r.json"},
		{[]string{"vectors", "--report", "-", "--junit", "-"}, 2, "at most one"},
		{[]string{"vectors", "--quiet", "--exec", "sleep 1000", "--timeout", "1s"}, 1, "nothing was judged"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, "", c.args...)
		if strings.Contains(stderr, "exec: exec:") {
			t.Errorf("loom-conform %v: stderr %q repeats itself", c.args, stderr)
		}
		if code != c.code || !strings.Contains(stderr, c.err) {
			t.Errorf("loom-conform %v = exit %d, stderr %q; want exit %d, stderr containing %q", c.args, code, stderr, c.code, c.err)
		}
	}
}

// The CLI drives itself as a foreign fold (`vectors --serve` behind `--exec`) over the whole
// corpus and writes JUnit and JSON reports.
func TestVectorsExecServe(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	junit, report := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.json")
	code, stdout, stderr := runCLI(t, "", "vectors", "--exec", `"`+bin+`" vectors --serve`, "--junit", junit, "--report", report)
	if code != 0 {
		t.Fatalf("vectors --exec '%s vectors --serve' = exit %d\n%s\n%s", bin, code, stdout, stderr)
	}
	if !strings.Contains(stdout, "PASS") || !strings.Contains(stderr, "progress:") {
		t.Errorf("summary/progress missing: stdout %q stderr %q", stdout, stderr)
	}
	// Reference: I-PERF-12 — the summary says how much of the run was starting the fold process.
	if !regexp.MustCompile(`(?m)^processes: [1-9][0-9]* fold process\(es\) started; start-up \(start to first answer\) \S+ of the run's \S+ \([0-9.]+ %\)$`).MatchString(stdout) {
		t.Errorf("cli/vectors-exec [I-PERF-12]: vectors --exec summary = \n%s\nwant a line of the processes started and their start-up", stdout)
	}
	var rep struct {
		OK      bool `json:"ok"`
		Pass    int  `json:"pass"`
		Results []struct {
			ID      string `json:"id"`
			Verdict string `json:"verdict"`
		} `json:"results"`
	}
	data, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(data, &rep) != nil || !rep.OK || rep.Pass == 0 || rep.Pass != len(rep.Results) {
		t.Errorf("--report: ok=%v pass=%d of %d (%v)", rep.OK, rep.Pass, len(rep.Results), err)
	}
	var suites struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	data, err = os.ReadFile(junit)
	if err != nil || xml.Unmarshal(data, &suites) != nil || len(suites.Suites) != 3 {
		t.Errorf("--junit: %d suites (%v), want fold, canonical, digest", len(suites.Suites), err)
	}
	in := `{"kind":"canonical","id":"a","input":"[1.0,{\"b\":1,\"a\":2}]"}` + "\n" + `{"kind":"digest","id":"b","segment":0,"eventType":"progress","payload":{"p":1}}` + "\n"
	code, stdout, _ = runCLI(t, in, "vectors", "--serve")
	want := `{"id":"a","output":"[1,{\"a\":2,\"b\":1}]"}` + "\n" + `{"id":"b","output":"e5dc3cdf3f69d31d"}` + "\n"
	if code != 0 || stdout != want {
		t.Errorf("vectors --serve = exit %d, %q; want 0, %q", code, stdout, want)
	}
}

// --write-ledger starts a ledger from a failing run that --expected-failures then reads back;
// "-" writes a report to stdout and moves the summary to stderr.
func TestVectorsWriteLedgerAndStdout(t *testing.T) {
	bad := t.TempDir()
	writeVector(t, bad, "v.json", `"{\"b\":1,\"a\":2}"`)
	ledger := filepath.Join(t.TempDir(), "ledger.json")
	if code, _, stderr := runCLI(t, "", "vectors", "--quiet", bad, "--write-ledger", ledger); code != 1 {
		t.Fatalf("vectors (failing) --write-ledger = exit %d: %s", code, lastLine(stderr))
	}
	if data, _ := os.ReadFile(ledger); !strings.Contains(string(data), "fails since "+time.Now().UTC().Format(time.DateOnly)) {
		t.Errorf("vectors --write-ledger wrote %s, want a reason saying since when it fails (docs/ledger.md)", data)
	}
	if code, _, stderr := runCLI(t, "", "vectors", "--quiet", bad, "--expected-failures", ledger); code != 0 {
		t.Errorf("vectors --expected-failures <written ledger> = exit %d: %s", code, lastLine(stderr))
	}
	code, stdout, stderr := runCLI(t, "", "vectors", "--quiet", bad, "--expected-failures", ledger, "--report", "-")
	var rep struct {
		OK     bool `json:"ok"`
		Judged bool `json:"judged"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || !rep.OK || !rep.Judged || !strings.Contains(stderr, "PASS") {
		t.Errorf("vectors --report - = exit %d, stdout %q; want the JSON report alone on stdout, the summary on stderr", code, stdout)
	}
}

// Reference: DESIGN §7.1, a tier per assertion (I-CERT-10) — a fold that refuses exactly the logs
// the reference refuses but names them by other error kinds (I-FOLD-22, I-FOLD-23: choices) meets
// the spec: vectors --exec passes with the recommendations not met listed, and --strict fails it.
func TestVectorsRecommendationsNotMetPass(t *testing.T) {
	ff := filepath.Join(t.TempDir(), "foreignfold")
	if out, err := exec.Command("go", "build", "-o", ff, "../../vectors/testdata/foreignfold").CombinedOutput(); err != nil {
		t.Fatalf("go build foreignfold: %v\n%s", err, out)
	}
	under := `"` + ff + `" -bug other-error-kinds`
	report := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCLI(t, "", "vectors", "--quiet", "--exec", under, "--report", report)
	if code != 0 || !strings.Contains(stdout, "PASS: ") || !strings.Contains(stdout, "6 recommendation(s) not met") ||
		!strings.Contains(stdout, "fail (recommended) fold/input/sequence-missing") {
		t.Fatalf("cli/vectors-recommendations [I-CERT-10]: vectors --exec (other error kinds) = exit %d\n%s\n%s\nwant exit 0, PASS and 6 recommendations not met", code, stdout, stderr)
	}
	var rep struct {
		OK     bool `json:"ok"`
		Fail   int  `json:"fail"`
		NotMet int  `json:"recommendationsNotMet"`
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil || !rep.OK || rep.Fail != 6 || rep.NotMet != 6 {
		t.Errorf("cli/vectors-recommendations: --report = %+v (%v), want ok, 6 failed, 6 of them recommendations not met", rep, err)
	}
	code, stdout, stderr = runCLI(t, "", "vectors", "--quiet", "--strict", "--exec", under)
	if code != 1 || !strings.Contains(stdout, "FAIL: ") || !strings.Contains(stderr, "held by --strict") {
		t.Errorf("cli/vectors-recommendations: vectors --strict --exec (other error kinds) = exit %d\n%s\n%s\nwant exit 1, the recommendations held by --strict", code, stdout, stderr)
	}
}
