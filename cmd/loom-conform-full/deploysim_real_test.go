package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/certify/certifytest"
	"github.com/loom-kernel/loom-conform/deploysim/realfleet"
	"github.com/loom-kernel/loom-conform/internal/proof"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
)

// Reference: spec §6 — a real fleet of worker processes on PostgreSQL, killed (SIGKILL) and
// paused (SIGSTOP) at seeded moments, keeps the invariants. Needs PostgreSQL
// (scripts/with-services.sh); with CI=true it fails without one.
func TestDeploysimReal(t *testing.T) {
	dsn := storespg.TestDSN(t)
	bin := certifytest.Binary(t)
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, "deploysim", "--real", "--dsn", dsn, "--workers", "3", "--seeds", "2")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("deploysim --real = %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), lastLines(errb.String(), 40))
	}
	// --seeds 2 runs seeds 1 and 2, each a fleet of its own (I-SIM-10).
	ms := regexp.MustCompile(`seed (\d+): 16 executions \(16 judged\).* (\d+) SIGKILL, (\d+) SIGSTOP, 0 violations`).FindAllStringSubmatch(out.String(), -1)
	if len(ms) != 2 || ms[0][1] != "1" || ms[1][1] != "2" {
		t.Fatalf("stdout = %q, want a summary for seeds 1 and 2, each with 16 executions judged and 0 violations", out.String())
	}
	faults := 0
	for _, m := range ms {
		kills, _ := strconv.Atoi(m[2])
		stops, _ := strconv.Atoi(m[3])
		faults += kills + stops
	}
	if faults == 0 {
		t.Fatalf("stdout = %q: no worker was killed or paused, the run proves nothing", out.String())
	}
	// I-SIM-5: every invariant ran, on something, whatever the faults; nothing went unjudged; the
	// reproduce line carries the workload.
	for _, id := range []string{"sim/dense", "sim/acked-events", "sim/ends-visibly", "sim/snapshot-every-k", "sim/single-worker", "sim/at-most-once", "sim/served-not-rerun"} {
		if m := regexp.MustCompile(`ran ` + id + ` +on (\d+)`).FindStringSubmatch(out.String()); m == nil || m[1] == "0" {
			t.Errorf("stdout does not show %s run on something:\n%s", id, out.String())
		}
	}
	if strings.Contains(out.String(), "not judged") {
		t.Errorf("a settled fleet left something not judged:\n%s", out.String())
	}
	// Reference: I-PERF-12 — each fleet's summary says how much of its run was starting workers.
	if n := len(regexp.MustCompile(`(?m)^  processes: [1-9][0-9]* worker\(s\) started; start-up \(start to first answer\) \S+ of the run's \S+ \([0-9.]+ %\)$`).FindAllString(out.String(), -1)); n != 2 {
		t.Errorf("cli/deploysim-real [I-PERF-12]: deploysim --real summary has %d lines of the workers started and their start-up, want one per seed (2):\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "--executions 16") {
		t.Errorf("the reproduce line lacks --executions:\n%s", out.String())
	}
}

// Reference: I-SIM-10 — a fleet of 2 000 executions, with its faults, settles and is judged on
// every execution: the single-worker reference it is compared with settles all of them too.
// Needs PostgreSQL (scripts/with-services.sh); with CI=true it fails without one.
func TestDeploysimRealSettlesThousands(t *testing.T) {
	dsn := storespg.TestDSN(t)
	bin := certifytest.Binary(t)
	out, err := exec.Command(bin, "deploysim", "--real", "--dsn", dsn, "--executions", "2000", "--seed", "3", "--deadline", "10m").CombinedOutput()
	if err != nil {
		t.Fatalf("deploysim --real --executions 2000 = %v, want exit 0\n%s", err, lastLines(string(out), 40))
	}
	for _, want := range []string{"2000 executions (2000 judged)", "0 violations", "ran sim/single-worker    on 2000"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// Reference: S2.execute.served-not-rerun — a fleet whose workers re-run the effect of a step whose
// completion is logged (the broken worker rerun-completed-effect) exits 1, caught by
// sim/served-not-rerun from the effect ledger. Needs PostgreSQL.
func TestDeploysimRealBrokenWorker(t *testing.T) {
	dsn := storespg.TestDSN(t)
	bin := certifytest.Binary(t)
	for _, b := range realfleet.BrokenWorkers() {
		cmd := exec.Command(bin, "deploysim", "--real", "--dsn", dsn, "--executions", "8", "--no-faults", "--broken", b.Name, "--json")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("deploysim --real --broken %s = %v, want exit 1\n%s", b.Name, err, lastLines(errb.String(), 20))
			continue
		}
		var rep struct {
			Runs []realfleet.Result `json:"runs"`
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Runs) != 1 {
			t.Fatalf("--json = %v, %d runs: %.300s", err, len(rep.Runs), out.String())
		}
		var caught string
		for _, v := range rep.Runs[0].Violations {
			if v.Invariant == b.Catch && caught == "" {
				caught = v.Error()
			}
		}
		proof.Rejected(t, "fleet/real/"+b.Name, b.Catch, caught)
	}
}

func TestWorkerBadFlags(t *testing.T) {
	t.Setenv(storespg.DSNEnv, "") // no DSN from the environment either
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"worker"}, "a DSN is required"},
		{[]string{"worker", "--dsn", "postgres://x", "--code", "3"}, "--code 3"},
		{[]string{"worker", "--dsn", "postgres://x", "--ttl", "1ms"}, "--ttl 1ms"},
		{[]string{"worker", "--dsn", "postgres://x", "--dsn-file", "f"}, "give the DSN once"},
		{[]string{"worker", "--dsn-file", "/nonexistent/dsn"}, "--dsn-file"},
		{[]string{"deploysim", "--real"}, "--dsn (or $" + storespg.DSNEnv + ") is required"},
		{[]string{"deploysim", "--real", "--dsn", "postgres://x", "--deadline", "0s"}, "--deadline 0s"},
		{[]string{"deploysim", "--real", "--dsn", "postgres://x", "--broken", "nope"}, "unknown broken worker"},
		{[]string{"deploysim", "--real", "--dsn", "postgres://x", "--seeds", "0"}, "--seeds 0"},
		{[]string{"deploysim", "--deadline", "5m"}, "--deadline needs --real"},
		{[]string{"deploysim", "--executions", "50"}, "--executions needs --real"},
		{[]string{"worker", "--dsn", "postgres://x", "--broken", "nope"}, "unknown broken worker"},
	} {
		if code, _, stderr := runCLI(t, "", c.args...); code != 2 || !strings.Contains(stderr, c.err) {
			t.Errorf("loom-conform %v = exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.err)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// BenchmarkRealFleet reports executions/s of a real fleet without faults for 1, 2 and 4 worker
// processes on one PostgreSQL (the scaling ratio is the 4-worker figure over the 1-worker one,
// measured in one run).
func BenchmarkRealFleet(b *testing.B) {
	dsn := storespg.TestDSN(b)
	bin := certifytest.Binary(b)
	for _, w := range []string{"1", "2", "4"} {
		b.Run("workers="+w, func(b *testing.B) {
			total := 0.0
			for i := 0; i < b.N; i++ {
				out, err := exec.Command(bin, "deploysim", "--real", "--no-faults", "--executions", "64", "--dsn", dsn, "--workers", w).Output()
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				m := regexp.MustCompile(`\(([\d.]+) executions/s\)`).FindSubmatch(out)
				if m == nil {
					b.Fatalf("no throughput in %q", out)
				}
				v, _ := strconv.ParseFloat(string(m[1]), 64)
				total += v
			}
			b.ReportMetric(total/float64(b.N), "executions/s")
		})
	}
}
