package realfleet

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/internal/childproc"
	"github.com/loom-kernel/loom-conform/reference/fold"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/spi"
)

// Config is one real fleet run.
type Config struct {
	DSN string
	// Binary is the loom-conform executable the workers run (`worker` verb).
	Binary  string
	Workers int   // default 4
	Seed    int64 // draws the fault schedule
	// Orders and Batches are the executions (default 8 and 8).
	Orders, Batches int
	// Faults is how long faults are injected (default 3 s); then the fleet settles.
	Faults time.Duration
	// Timeout bounds the whole run (default 90 s).
	Timeout time.Duration
	// NoFaults runs the fleet without kills and pauses (for throughput figures).
	NoFaults bool
	Log      io.Writer
}

// Result is a real run: what was injected (Crashes, the SIGKILLs delivered to a live worker;
// Pauses, the SIGSTOPs of a running one), which invariants ran and on what, what could not be
// judged and why, and the throughput. It reports only what a real fleet observes (the
// simulation's counts of fenced appends or code mismatches have no counterpart here).
type Result struct {
	Scenario       string                `json:"scenario"`
	Seed           int64                 `json:"seed"`
	Workers        int                   `json:"workers"`
	Executions     int                   `json:"executions"`
	Events         int                   `json:"events"`
	Crashes        int                   `json:"crashes"`
	Pauses         int                   `json:"pauses"`
	Exits          int                   `json:"exits"` // workers that exited on their own, restarted
	Violations     []deploysim.Violation `json:"violations"`
	Repro          string                `json:"repro"`
	Invariants     []InvariantRun        `json:"invariants"`
	NotJudged      []NotJudged           `json:"notJudged"`
	Elapsed        time.Duration         `json:"elapsedNs"`
	ExecutionsPerS float64               `json:"executionsPerSecond"`
}

// InvariantRun says what one invariant judged in a real run.
type InvariantRun struct {
	ID string `json:"id"`
	// Judged counts what it looked at (executions, or effect groups for at-most-once).
	Judged int    `json:"judged"`
	Note   string `json:"note,omitempty"`
}

// NotJudged is a part of the run an invariant could not look at, and why (a read that failed is
// not a violation: nothing was seen to be wrong).
type NotJudged struct {
	Invariant string `json:"invariant"`
	Execution string `json:"execution,omitempty"`
	Why       string `json:"why"`
}

const ttl = time.Second

type proc struct {
	name   string
	cmd    *exec.Cmd
	done   chan struct{}
	paused atomic.Bool
}

// workerCommand is the command line of one worker. The DSN travels in its environment, never in
// its arguments: every user of the host can read a command line (ps, /proc/PID/cmdline).
func workerCommand(cfg Config, schema, name string) *exec.Cmd {
	cmd := exec.Command(cfg.Binary, "worker", "--schema", schema, "--target", "default", "--name", name, "--ttl", ttl.String())
	cmd.Env = append(os.Environ(), storespg.DSNEnv+"="+cfg.DSN)
	return cmd
}

// Repro is the command that re-runs cfg (the same fleet, seed and workload; the fault moments
// follow the seed, the operating system's timing does not).
func Repro(cfg Config) string {
	s := fmt.Sprintf(`loom-conform deploysim --real --dsn "$%s" --workers %d --seed %d --executions %d`, storespg.DSNEnv, cfg.Workers, cfg.Seed, cfg.Orders+cfg.Batches)
	if cfg.NoFaults {
		s += " --no-faults"
	}
	return s
}

// pausesDDL records each SIGSTOP with the database's clock, the clock the effect ledger uses.
const pausesDDL = `CREATE TABLE IF NOT EXISTS deploysim_pauses (worker TEXT NOT NULL, started TIMESTAMPTZ NOT NULL, ended TIMESTAMPTZ)`

// Run starts the fleet on a fresh schema, injects faults, waits for every execution to settle and
// checks the invariants a real fleet can observe.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.Orders == 0 && cfg.Batches == 0 {
		cfg.Orders, cfg.Batches = 8, 8
	}
	if cfg.Faults <= 0 {
		cfg.Faults = 3 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 90 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	repro := Repro(cfg)
	res := Result{Scenario: "real", Seed: cfg.Seed, Workers: cfg.Workers, Repro: repro, Violations: []deploysim.Violation{},
		Invariants: []InvariantRun{}, NotJudged: []NotJudged{}}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	schema := storespg.UniqueSchema("loom_fleet")
	db, d, err := Open(ctx, cfg.DSN, schema, []string{"default"})
	if err != nil {
		return res, err
	}
	defer func() {
		dctx, c := context.WithTimeout(context.Background(), 30*time.Second)
		defer c()
		_ = db.DropSchema(dctx)
		db.Close()
	}()
	if _, err := db.Pool().Exec(ctx, pausesDDL); err != nil {
		return res, err
	}
	rng := rand.New(rand.NewSource(cfg.Seed))
	start := time.Now()
	procs := make([]*proc, cfg.Workers)
	born := 0
	spawn := func(i int) error {
		born++
		name := fmt.Sprintf("w%d", born)
		cmd := workerCommand(cfg, schema, name)
		cmd.Stdout, cmd.Stderr = cfg.Log, cfg.Log
		cmd.SysProcAttr = childproc.Attr() // a worker dies with the simulation, even a SIGKILLed one
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting worker %s: %w", name, err)
		}
		p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
		go func() { _ = cmd.Wait(); close(p.done) }()
		procs[i] = p
		return nil
	}
	for i := range procs {
		if err := spawn(i); err != nil {
			return res, err
		}
	}
	defer func() {
		for _, p := range procs {
			_ = p.cmd.Process.Signal(childproc.SigCont)
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(5 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}
	}()
	execs := deploysim.Executions(cfg.Orders, cfg.Batches)
	// Executions arrive at seeded moments over the fault window, and parks are answered after a
	// seeded delay, so kills and pauses meet executions in every state.
	arrive := make([]time.Time, len(execs))
	for i := range execs {
		arrive[i] = start.Add(time.Duration(rng.Int63n(int64(cfg.Faults) * 2 / 3)))
		if cfg.NoFaults {
			arrive[i] = start
		}
	}
	dispatched := make([]bool, len(execs))
	answered := map[string]bool{}
	answerAt := map[string]time.Time{}
	nextFault := time.Now().Add(time.Duration(50+rng.Intn(150)) * time.Millisecond)
	for {
		if ctx.Err() != nil {
			res.Violations = append(res.Violations, deploysim.NewViolation("sim/ends-visibly", "", "Run", "the fleet did not settle within "+cfg.Timeout.String(), "every execution settled", repro))
			break
		}
		if !cfg.NoFaults && time.Since(start) < cfg.Faults && time.Now().After(nextFault) {
			i := rng.Intn(len(procs))
			p := procs[i]
			kill := rng.Intn(2) == 0
			pause := time.Duration(100+rng.Intn(int(2*ttl/time.Millisecond))) * time.Millisecond
			select {
			case <-p.done: // it exited on its own (restarted below): nothing to inject
			default:
				switch {
				case kill:
					if p.cmd.Process.Kill() == nil {
						res.Crashes++
					}
					<-p.done
					if err := spawn(i); err != nil {
						return res, err
					}
				case !p.paused.Load(): // a worker already stopped is not stopped twice (nor counted)
					if err := pauseFor(ctx, db, p, pause); err == nil {
						res.Pauses++
					}
				}
			}
			nextFault = time.Now().Add(time.Duration(100+rng.Intn(300)) * time.Millisecond)
		}
		// A worker that exited on its own is restarted, as a supervisor would, and counted: a fleet
		// left with no live worker would never settle, and the report would not say why.
		for i, p := range procs {
			select {
			case <-p.done:
				res.Exits++
				if err := spawn(i); err != nil {
					return res, err
				}
			default:
			}
		}
		settled := true
		for i, e := range execs {
			if !dispatched[i] {
				settled = false
				if time.Now().After(arrive[i]) {
					if err := d.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: e.ID, FlowID: e.Flow, Hints: deploysim.StartHints(e)}); err != nil {
						return res, err
					}
					dispatched[i] = true
				}
				continue
			}
			evs, err := db.Events().Read(ctx, e.ID)
			if err != nil || len(evs) == 0 {
				settled = false
				continue
			}
			st, err := fold.Fold(fold.Current(), nil, evs)
			if err != nil {
				continue
			}
			switch st.Status {
			case fold.StatusCompleted, fold.StatusFailed, fold.StatusCancelled:
				continue
			case fold.StatusSuspended:
				settled = false
				key := fmt.Sprintf("%s#%d", e.ID, st.Sequence)
				if answered[key] {
					continue
				}
				if _, ok := answerAt[key]; !ok && !cfg.NoFaults {
					answerAt[key] = time.Now().Add(time.Duration(rng.Intn(400)) * time.Millisecond)
				}
				if time.Now().Before(answerAt[key]) {
					continue
				}
				h := deploysim.AnswerHints(evs, st, func(step string, attempt int64) (string, bool) {
					var tool string
					err := db.Pool().QueryRow(ctx, `SELECT tool FROM deploysim_effects WHERE execution_id=$1 AND step=$2 AND attempt=$3 LIMIT 1`, e.ID, step, attempt).Scan(&tool)
					return tool, err == nil
				})
				if h != nil && d.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: e.ID, FlowID: e.Flow, Hints: h}) == nil {
					answered[key] = true
				}
			default:
				settled = false
			}
		}
		if settled {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	res.Elapsed = time.Since(start)
	res.ExecutionsPerS = float64(len(execs)) / res.Elapsed.Seconds()
	for _, p := range procs { // every pause ends before the logs are judged
		for p.paused.Load() {
			time.Sleep(10 * time.Millisecond)
		}
	}
	// The logs are read with a time of their own: the run's limit having passed says the fleet did
	// not settle (reported above), not that the logs cannot be read.
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), 60*time.Second)
	defer ccancel()
	check(cctx, &res, observed{read: db.Events().Read, effects: func(ctx context.Context) (effectGroups, int, error) { return atMostOnce(ctx, db) }}, execs, cfg, repro)
	return res, nil
}

// pauseFor SIGSTOPs p for d, recording the pause with the database's clock, then SIGCONTs it.
func pauseFor(ctx context.Context, db *storespg.DB, p *proc, d time.Duration) error {
	if err := p.cmd.Process.Signal(childproc.SigStop); err != nil {
		return err
	}
	p.paused.Store(true)
	_, _ = db.Pool().Exec(ctx, `INSERT INTO deploysim_pauses (worker, started) VALUES ($1, clock_timestamp())`, p.name)
	go func() {
		time.Sleep(d)
		_ = p.cmd.Process.Signal(childproc.SigCont)
		ectx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = db.Pool().Exec(ectx, `UPDATE deploysim_pauses SET ended = clock_timestamp() WHERE worker = $1 AND ended IS NULL`, p.name)
		p.paused.Store(false)
	}()
	return nil
}

// observed is what a finished fleet shows: each execution's log and the effect ledger judged for
// at-most-once.
type observed struct {
	read    func(ctx context.Context, execID string) ([]spi.Envelope, error)
	effects func(ctx context.Context) (effectGroups, int, error)
}

// check runs the invariants a real fleet can observe from its logs and effect ledger, on every
// run: it records which ran and on what, and what it could not read (not judged, never a
// violation).
func check(ctx context.Context, res *Result, obs observed, execs []deploysim.Execution, cfg Config, repro string) {
	fail := func(id, exec, op, got, want string) {
		res.Violations = append(res.Violations, deploysim.NewViolation(id, exec, op, got, want, repro))
	}
	judged := map[string]int{}
	notJudged := func(id, exec, why string) {
		res.NotJudged = append(res.NotJudged, NotJudged{Invariant: id, Execution: exec, Why: why})
	}
	ref := deploysim.Reference(cfg.Orders, cfg.Batches, 1)
	res.Executions = len(execs)
	for _, e := range execs {
		evs, err := obs.read(ctx, e.ID)
		if err != nil {
			for _, id := range []string{"sim/dense", "sim/acked-events", "sim/ends-visibly", "sim/snapshot-every-k", "sim/single-worker"} {
				notJudged(id, e.ID, "reading the log failed: "+err.Error())
			}
			continue
		}
		res.Events += len(evs)
		judged["sim/dense"]++
		judged["sim/acked-events"]++
		ids := map[string]bool{}
		for i, ev := range evs {
			if ev.Sequence != int64(i) {
				fail("sim/dense", e.ID, "Read", fmt.Sprintf("sequence %d at index %d", ev.Sequence, i), "dense from 0")
				break
			}
			if ids[ev.ID] {
				fail("sim/acked-events", e.ID, "Read", fmt.Sprintf("envelope id %q twice", ev.ID), "each envelope once")
			}
			ids[ev.ID] = true
		}
		judged["sim/ends-visibly"]++
		st, err := fold.Fold(fold.Current(), nil, evs)
		if err != nil {
			fail("sim/ends-visibly", e.ID, "Fold", err.Error(), "a foldable log")
			continue
		}
		if st.Status != fold.StatusCompleted {
			fail("sim/ends-visibly", e.ID, "Fold", "status "+st.Status, "completed")
			continue
		}
		judged["sim/snapshot-every-k"]++
		for k := 0; k+1 < len(evs); k++ {
			snap, _ := fold.Fold(fold.Current(), nil, evs[:k+1])
			got, _ := fold.Fold(fold.Current(), &snap, evs[k+1:])
			if !fold.Equal(st, got) {
				fail("sim/snapshot-every-k", e.ID, "Fold", fmt.Sprintf("fold(snapshot@%d, tail) differs", k), "equal")
				break
			}
		}
		judged["sim/single-worker"]++
		if d := deploysim.SameOutcome(ref[e.ID], st); d != "" {
			fail("sim/single-worker", e.ID, "Fold", "a different final state:\n"+d, "the single-worker run's")
		}
	}
	groups, excused, err := obs.effects(ctx)
	if err != nil {
		notJudged("sim/at-most-once", "", "reading the effect ledger failed: "+err.Error())
	} else {
		judged["sim/at-most-once"] = groups.judged
		for _, d := range groups.dup {
			fail("sim/at-most-once", d, "Effect", "run more than once", "at most once")
		}
	}
	for _, id := range []string{"sim/dense", "sim/acked-events", "sim/ends-visibly", "sim/snapshot-every-k", "sim/single-worker", "sim/at-most-once"} {
		run := InvariantRun{ID: id, Judged: judged[id]}
		switch id {
		case "sim/acked-events":
			run.Note = "each envelope id once per log (a real fleet's acknowledgements are not observed)"
		case "sim/at-most-once":
			run.Note = "effect groups of the at-most-once tool"
			if excused > 0 {
				run.Note += fmt.Sprintf("; %d second run(s) excused: made by a worker after it was resumed from a SIGSTOP that began before the first run (a zombie's effect, which only an effect-side fence prevents; I-SIM-3)", excused)
			}
		}
		res.Invariants = append(res.Invariants, run)
	}
}

// effectGroups are the at-most-once effects judged, and the ones run twice without excuse.
type effectGroups struct {
	judged int
	dup    []string
}

// atMostOnce judges every (execution, step) of the at-most-once tool: run more than once is a
// violation unless every later run was made by a worker after its resume from a SIGSTOP that began
// before the first run (the zombie window of I-SIM-3). Times are the database's clock.
func atMostOnce(ctx context.Context, db *storespg.DB) (effectGroups, int, error) {
	var g effectGroups
	rows, err := db.Pool().Query(ctx, `
		SELECT e.execution_id, e.step, e.worker, e.at,
		       EXISTS (SELECT 1 FROM deploysim_pauses p WHERE p.worker = e.worker AND p.ended IS NOT NULL AND p.ended <= e.at
		               AND p.started <= (SELECT min(f.at) FROM deploysim_effects f WHERE f.execution_id = e.execution_id AND f.step = e.step AND f.tool = 'once'))
		FROM deploysim_effects e WHERE e.tool = 'once' ORDER BY e.execution_id, e.step, e.at`)
	if err != nil {
		return g, 0, err
	}
	defer rows.Close()
	type run struct {
		worker string
		at     time.Time
		zombie bool
	}
	runs := map[string][]run{}
	var keys []string
	for rows.Next() {
		var ex, step, worker string
		var r run
		if err := rows.Scan(&ex, &step, &worker, &r.at, &r.zombie); err != nil {
			return g, 0, err
		}
		r.worker = worker
		k := ex + "/" + step
		if runs[k] == nil {
			keys = append(keys, k)
		}
		runs[k] = append(runs[k], r)
	}
	if err := rows.Err(); err != nil {
		return g, 0, err
	}
	excused := 0
	sort.Strings(keys)
	for _, k := range keys {
		g.judged++
		rs := runs[k]
		unexcused := 0
		for _, r := range rs[1:] {
			if r.zombie {
				excused++
			} else {
				unexcused++
			}
		}
		if unexcused > 0 {
			g.dup = append(g.dup, fmt.Sprintf("%s ×%d", k, len(rs)))
		}
	}
	return g, excused, nil
}
