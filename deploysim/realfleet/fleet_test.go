package realfleet

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/deploysim"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/spi"
)

// Reference: I-NET-7 — a worker's command line, which every user of the host can read, never
// holds the DSN; the worker gets it in its environment.
func TestWorkerCommandKeepsTheDSNOffTheCommandLine(t *testing.T) {
	const dsn = "postgres://fleet:PLANT3D-fleet-pw@127.0.0.1:5432/loom"
	cmd := workerCommand(Config{DSN: dsn, Binary: "/bin/loom-conform"}, "loom_fleet_1", "w1")
	if argv := strings.Join(cmd.Args, " "); strings.Contains(argv, "PLANT3D") || strings.Contains(argv, "--dsn") {
		t.Fatalf("worker command line = %q, want no DSN", argv)
	}
	found := false
	for _, kv := range cmd.Env {
		found = found || kv == storespg.DSNEnv+"="+dsn
	}
	if !found {
		t.Fatalf("worker environment lacks %s", storespg.DSNEnv)
	}
}

// Reference: I-SIM-5 — the reproduce line carries everything that shapes the run.
func TestReproCarriesTheWorkload(t *testing.T) {
	r := Repro(Config{Workers: 3, Seed: 5, Orders: 10, Batches: 10, NoFaults: true})
	for _, want := range []string{"--workers 3", "--seed 5", "--executions 20", "--no-faults", `--dsn "$` + storespg.DSNEnv + `"`} {
		if !strings.Contains(r, want) {
			t.Errorf("Repro = %q, want %q in it", r, want)
		}
	}
}

// Reference: I-SIM-5 — a log the fleet's check cannot read (the run's time limit passed, the
// database went away) is not judged, listed with why, and is never a violation; every invariant
// is listed with what it judged.
func TestUnreadableLogsAreNotJudged(t *testing.T) {
	cfg := Config{Orders: 2, Batches: 2}
	execs := deploysim.Executions(cfg.Orders, cfg.Batches)
	var res Result
	obs := observed{
		read: func(context.Context, string) ([]spi.Envelope, error) { return nil, context.DeadlineExceeded },
		effects: func(context.Context) (effectGroups, int, error) {
			return effectGroups{}, 0, errors.New("connection refused")
		},
	}
	check(context.Background(), &res, obs, execs, cfg, "repro")
	if len(res.Violations) != 0 {
		t.Fatalf("unreadable logs gave %d violations (%v), want none", len(res.Violations), res.Violations[0])
	}
	if want := 5*len(execs) + 1; len(res.NotJudged) != want {
		t.Fatalf("not judged = %d entries, want %d (five invariants per execution, and the ledger)", len(res.NotJudged), want)
	}
	if len(res.Invariants) != 6 {
		t.Fatalf("invariants listed = %+v, want all six", res.Invariants)
	}
	for _, iv := range res.Invariants {
		if iv.Judged != 0 {
			t.Errorf("%s judged %d with nothing readable", iv.ID, iv.Judged)
		}
	}
}
