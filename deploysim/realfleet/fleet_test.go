package realfleet

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/reference/fold"
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
	r := Repro(Config{Workers: 3, Seed: 5, Orders: 10, Batches: 10, NoFaults: true, Deadline: 5 * time.Minute, Broken: "rerun-completed-effect"})
	for _, want := range []string{"--workers 3", "--seed 5", "--executions 20", "--no-faults", "--deadline 5m0s", "--broken rerun-completed-effect", `--dsn "$` + storespg.DSNEnv + `"`} {
		if !strings.Contains(r, want) {
			t.Errorf("Repro = %q, want %q in it", r, want)
		}
	}
}

// Reference: I-SIM-5 — a log the fleet's check cannot read (the database went away) is not
// judged, listed with why, and is never a violation; every invariant is listed with what it
// judged.
func TestUnreadableLogsAreNotJudged(t *testing.T) {
	execs := deploysim.Executions(2, 2)
	var res Result
	obs := observed{
		read: func(context.Context, string) ([]spi.Envelope, error) { return nil, context.DeadlineExceeded },
		ledger: func(context.Context) ([]effectRun, []pauseSpan, error) {
			return nil, nil, errors.New("connection refused")
		},
	}
	check(context.Background(), &res, obs, execs, deploysim.Reference(2, 2, 1), "repro")
	if len(res.Violations) != 0 {
		t.Fatalf("unreadable logs gave %d violations (%v), want none", len(res.Violations), res.Violations[0])
	}
	if want := len(invariantIDs)*len(execs) + 2; len(res.NotJudged) != want {
		t.Fatalf("not judged = %d entries, want %d (every invariant per execution, and the ledger twice)", len(res.NotJudged), want)
	}
	if len(res.Invariants) != len(invariantIDs) || res.Judged != 0 {
		t.Fatalf("invariants listed = %+v, judged %d; want all %d, nothing judged", res.Invariants, res.Judged, len(invariantIDs))
	}
	for _, iv := range res.Invariants {
		if iv.Judged != 0 {
			t.Errorf("%s judged %d with nothing readable", iv.ID, iv.Judged)
		}
	}
}

// refLogs runs the executions on the simulation's single worker and serves their logs as a
// fleet's: what a correct fleet leaves behind.
func refLogs(t *testing.T, orders, batches int) (map[string][]spi.Envelope, []deploysim.Execution) {
	t.Helper()
	return deploysim.ReferenceLogs(orders, batches, 1), deploysim.Executions(orders, batches)
}

// Reference: I-SIM-10 — a fleet that did not settle by its deadline is one verdict (unknown, with
// how many executions were unfinished), never a violation per execution; only what settled is
// judged and counted.
func TestUnsettledFleetIsOneVerdict(t *testing.T) {
	logs, execs := refLogs(t, 3, 3)
	// Two executions never finished: one still running (its log cut after the start), one never
	// started.
	cut := execs[0].ID
	logs[cut] = logs[cut][:1]
	delete(logs, execs[1].ID)
	obs := observed{
		read:   func(_ context.Context, id string) ([]spi.Envelope, error) { return logs[id], nil },
		ledger: func(context.Context) ([]effectRun, []pauseSpan, error) { return nil, nil, nil },
	}
	done, unfinished := settledNow(context.Background(), obs, execs)
	if len(unfinished) != 2 || len(done) != len(execs)-2 {
		t.Fatalf("settledNow = %d done, %d unfinished; want %d and 2", len(done), len(unfinished), len(execs)-2)
	}
	res := Result{Unsettled: &Unsettled{Deadline: time.Second, Unfinished: len(unfinished)}}
	check(context.Background(), &res, obs, done, deploysim.Reference(3, 3, 1), "repro")
	if len(res.Violations) != 0 {
		t.Fatalf("an unsettled fleet gave violations: %v", res.Violations)
	}
	if res.Verdict() != Unknown || res.Judged != len(execs)-2 {
		t.Fatalf("verdict %s, judged %d; want unknown and %d judged", res.Verdict(), res.Judged, len(execs)-2)
	}
	for _, iv := range res.Invariants {
		if iv.ID == "sim/ends-visibly" && iv.Judged != len(execs)-2 {
			t.Errorf("sim/ends-visibly judged %d, want only the %d settled", iv.Judged, len(execs)-2)
		}
	}
	if got := res.Unsettled.String(); got != "did not settle in 1s; 2 unfinished, not judged" {
		t.Errorf("Unsettled = %q", got)
	}
}

// Reference: I-SIM-10 — an execution the single-worker reference did not settle is not judged by
// sim/single-worker, and says so; it is never a violation.
func TestUnsettledReferenceIsNotJudged(t *testing.T) {
	logs, execs := refLogs(t, 2, 2)
	obs := observed{
		read:   func(_ context.Context, id string) ([]spi.Envelope, error) { return logs[id], nil },
		ledger: func(context.Context) ([]effectRun, []pauseSpan, error) { return nil, nil, nil },
	}
	ref := deploysim.Reference(2, 2, 1)
	st := ref[execs[0].ID]
	st.Status = fold.StatusSuspended
	ref[execs[0].ID] = st
	var res Result
	check(context.Background(), &res, obs, execs, ref, "repro")
	if len(res.Violations) != 0 || len(res.NotJudged) != 1 || res.NotJudged[0].Invariant != "sim/single-worker" || !strings.Contains(res.NotJudged[0].Why, "reference did not settle") {
		t.Fatalf("violations %v, not judged %+v; want none and one sim/single-worker entry", res.Violations, res.NotJudged)
	}
}

// Reference: I-SIM-3, S2.execute.served-not-rerun — the ledger judge excuses a second run (or a
// run after the completion was logged) only in the zombie window: its worker resumed, before the
// run, from a SIGSTOP that began before the step's first run.
func TestLedgerJudgeExcusesOnlyZombies(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(1000, 0).Add(time.Duration(ms) * time.Millisecond) }
	runs := []effectRun{
		{exec: "order-0", step: "charge", tool: "once", worker: "w1", at: at(100)},
		{exec: "order-0", step: "charge", tool: "once", worker: "w2", at: at(300)}, // w2 paused 50..250: excused
		{exec: "order-1", step: "charge", tool: "once", worker: "w1", at: at(100)},
		{exec: "order-1", step: "charge", tool: "once", worker: "w1", at: at(200)},                         // no pause: a duplicate
		{exec: "order-2", step: "reserve", tool: "echo", worker: "w3", at: at(400), completedBefore: true}, // no pause: a rerun
		{exec: "order-3", step: "reserve", tool: "echo", worker: "w2", at: at(90)},
		{exec: "order-3", step: "reserve", tool: "echo", worker: "w2", at: at(260), completedBefore: true}, // excused
		{exec: "order-9", step: "reserve", tool: "echo", worker: "w3", at: at(400), completedBefore: true}, // not judged
	}
	pauses := []pauseSpan{{worker: "w2", started: at(50), ended: at(250)}, {worker: "w3", started: at(500)}}
	judged := map[string]bool{"order-0": true, "order-1": true, "order-2": true, "order-3": true}
	v := judgeLedger(runs, pauses, judged)
	if v.onceGroups != 2 || len(v.dup) != 1 || !strings.HasPrefix(v.dup[0], "order-1/charge") || v.excusedOnce != 1 {
		t.Errorf("at-most-once: %d groups, dup %v, %d excused; want 2, [order-1/charge ×2], 1", v.onceGroups, v.dup, v.excusedOnce)
	}
	if v.runs != 7 || len(v.rerun) != 1 || v.rerun[0].exec != "order-2" || v.excusedReruns != 1 {
		t.Errorf("served-not-rerun: %d runs, rerun %+v, %d excused; want 7, order-2 only, 1", v.runs, v.rerun, v.excusedReruns)
	}
}
