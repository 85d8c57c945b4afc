package realfleet

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/internal/childproc"
	dispatchpg "github.com/loom-kernel/loom-conform/reference/dispatch/postgres"
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
	// Deadline bounds the wait for the fleet to settle (default DefaultDeadline): what is unfinished
	// then is not judged, and the run's verdict is unknown (Unsettled).
	Deadline time.Duration
	// NoFaults runs the fleet without kills and pauses (for throughput figures).
	NoFaults bool
	// Broken makes every worker one of the broken workers (BrokenWorkers); "" is a correct fleet.
	Broken string
	Log    io.Writer
}

// DefaultDeadline is how long a fleet is given to settle unless told otherwise.
const DefaultDeadline = 90 * time.Second

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
	args := []string{"worker", "--schema", schema, "--target", "default", "--name", name, "--ttl", ttl.String()}
	if cfg.Broken != "" {
		args = append(args, "--broken", cfg.Broken)
	}
	cmd := exec.Command(cfg.Binary, args...)
	cmd.Env = append(os.Environ(), storespg.DSNEnv+"="+cfg.DSN)
	return cmd
}

// Repro is the command that re-runs cfg (the same fleet, seed, workload and deadline; the fault
// moments follow the seed, the operating system's timing does not).
func Repro(cfg Config) string {
	s := fmt.Sprintf(`loom-conform deploysim --real --dsn "$%s" --workers %d --seed %d --executions %d`, storespg.DSNEnv, cfg.Workers, cfg.Seed, cfg.Orders+cfg.Batches)
	if cfg.Deadline > 0 && cfg.Deadline != DefaultDeadline {
		s += " --deadline " + cfg.Deadline.String()
	}
	if cfg.NoFaults {
		s += " --no-faults"
	}
	if cfg.Broken != "" {
		s += " --broken " + cfg.Broken
	}
	return s
}

// pausesDDL records each SIGSTOP with the database's clock, the clock the effect ledger uses.
const pausesDDL = `CREATE TABLE IF NOT EXISTS deploysim_pauses (worker TEXT NOT NULL, started TIMESTAMPTZ NOT NULL, ended TIMESTAMPTZ)`

func (cfg Config) withDefaults() Config {
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.Orders == 0 && cfg.Batches == 0 {
		cfg.Orders, cfg.Batches = 8, 8
	}
	if cfg.Faults <= 0 {
		cfg.Faults = 3 * time.Second
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = DefaultDeadline
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	return cfg
}

// Run starts the fleet on a fresh schema, injects faults, waits until every execution settled or
// the deadline passed, stops the fleet and checks the invariants a real fleet can observe on what
// settled.
func Run(ctx context.Context, cfg Config) (Result, error) {
	cfg = cfg.withDefaults()
	if cfg.Broken != "" {
		if _, err := LookupBroken(cfg.Broken); err != nil {
			return Result{}, err
		}
	}
	repro := Repro(cfg)
	res := Result{Scenario: "real", Seed: cfg.Seed, Workers: cfg.Workers, Repro: repro, Violations: []deploysim.Violation{},
		Invariants: []InvariantRun{}, NotJudged: []NotJudged{}}
	schema := storespg.UniqueSchema("loom_fleet")
	octx, ocancel := context.WithTimeout(ctx, time.Minute)
	db, d, err := Open(octx, cfg.DSN, schema, []string{"default"})
	ocancel()
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
	f := &fleet{cfg: cfg, schema: schema, procs: make([]*proc, cfg.Workers)}
	defer f.stop()
	for i := range f.procs {
		if err := f.spawn(i); err != nil {
			return res, err
		}
	}
	execs := deploysim.Executions(cfg.Orders, cfg.Batches)
	res.Executions = len(execs)
	start := time.Now()
	wctx, wcancel := context.WithDeadline(ctx, start.Add(cfg.Deadline))
	defer wcancel()
	if err := f.drive(wctx, db, d, execs, &res); err != nil {
		return res, err
	}
	res.Elapsed, res.Started = time.Since(start), f.born
	f.stop()
	// The logs are read with a time of their own, after the fleet stopped: the deadline having
	// passed says the fleet did not settle, not that its logs cannot be read.
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer ccancel()
	obs := observed{read: db.Events().Read, ledger: func(ctx context.Context) ([]effectRun, []pauseSpan, error) { return readLedger(ctx, db) }}
	done, unfinished := settledNow(cctx, obs, execs)
	if len(unfinished) > 0 {
		u := &Unsettled{Deadline: cfg.Deadline, Unfinished: len(unfinished)}
		for _, e := range unfinished[:min(len(unfinished), maxListed)] {
			u.First = append(u.First, e.ID)
		}
		res.Unsettled = u
	}
	res.ExecutionsPerS = float64(len(done)) / res.Elapsed.Seconds()
	check(cctx, &res, obs, done, deploysim.Reference(cfg.Orders, cfg.Batches, 1), repro)
	return res, nil
}

// settledNow splits the executions of a stopped fleet into those that settled and those that did
// not (or whose log cannot be read: check then says why it is not judged).
func settledNow(ctx context.Context, obs observed, execs []deploysim.Execution) (done, unfinished []deploysim.Execution) {
	for _, e := range execs {
		evs, err := obs.read(ctx, e.ID)
		if err != nil {
			done = append(done, e)
			continue
		}
		st, err := fold.Fold(fold.Current(), nil, evs)
		if err != nil || len(evs) > 0 && settled(st.Status) {
			done = append(done, e) // an unfoldable log is judged: sim/ends-visibly says why
			continue
		}
		unfinished = append(unfinished, e)
	}
	return done, unfinished
}

// fleet is the worker processes of one run.
type fleet struct {
	cfg     Config
	schema  string
	procs   []*proc
	born    int
	stopped bool
}

// spawn starts worker i (again).
func (f *fleet) spawn(i int) error {
	f.born++
	name := fmt.Sprintf("w%d", f.born)
	cmd := workerCommand(f.cfg, f.schema, name)
	cmd.Stdout, cmd.Stderr = f.cfg.Log, f.cfg.Log
	cmd.SysProcAttr = childproc.Attr() // a worker dies with the simulation, even a SIGKILLed one
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting worker %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	f.procs[i] = p
	return nil
}

// stop ends every worker: SIGCONT (a paused one must see its SIGTERM), SIGTERM, then SIGKILL after
// 5 s. It waits for the pauses in progress to end first, so each is recorded whole.
func (f *fleet) stop() {
	if f.stopped {
		return
	}
	f.stopped = true
	for _, p := range f.procs {
		for p != nil && p.paused.Load() {
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, p := range f.procs {
		if p == nil {
			continue
		}
		_ = p.cmd.Process.Signal(childproc.SigCont)
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// view is the harness's last look at one execution: its log's length and folded state.
type view struct {
	next int64
	evs  []spi.Envelope
	st   fold.State
}

// drive dispatches the executions at seeded moments, injects the seeded faults, restarts workers
// that exited, and answers parks, until every execution settled or ctx ends (the deadline). A log
// is read again only when its length changed (one query a round asks for every length).
func (f *fleet) drive(ctx context.Context, db *storespg.DB, d *dispatchpg.Dispatcher, execs []deploysim.Execution, res *Result) error {
	cfg := f.cfg
	rng := rand.New(rand.NewSource(cfg.Seed))
	start := time.Now()
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
	done := make([]bool, len(execs))
	views := map[string]view{}
	answered := map[string]bool{}
	answerAt := map[string]time.Time{}
	nextFault := time.Now().Add(time.Duration(50+rng.Intn(150)) * time.Millisecond)
	for ctx.Err() == nil {
		if !cfg.NoFaults && time.Since(start) < cfg.Faults && time.Now().After(nextFault) {
			if err := f.fault(ctx, db, rng, res); err != nil {
				return err
			}
			nextFault = time.Now().Add(time.Duration(100+rng.Intn(300)) * time.Millisecond)
		}
		// A worker that exited on its own is restarted, as a supervisor would, and counted: a fleet
		// left with no live worker would never settle, and the report would not say why.
		for i, p := range f.procs {
			select {
			case <-p.done:
				res.Exits++
				if err := f.spawn(i); err != nil {
					return err
				}
			default:
			}
		}
		lengths, lerr := logLengths(ctx, db)
		all := true
		for i, e := range execs {
			if done[i] {
				continue
			}
			all = false
			if !dispatched[i] {
				if time.Now().After(arrive[i]) {
					if err := d.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: e.ID, FlowID: e.Flow, Hints: deploysim.StartHints(e)}); err != nil {
						if ctx.Err() != nil {
							break
						}
						return err
					}
					dispatched[i] = true
				}
				continue
			}
			v, seen := views[e.ID]
			if n, known := lengths[e.ID]; lerr != nil || !seen || !known || n != v.next {
				evs, err := db.Events().Read(ctx, e.ID)
				if err != nil || len(evs) == 0 {
					continue
				}
				st, err := fold.Fold(fold.Current(), nil, evs)
				if err != nil {
					continue
				}
				v = view{next: int64(len(evs)), evs: evs, st: st}
				views[e.ID] = v
			}
			switch {
			case settled(v.st.Status):
				done[i] = true
				delete(views, e.ID)
			case v.st.Status == fold.StatusSuspended:
				key := fmt.Sprintf("%s#%d", e.ID, v.st.Sequence)
				if answered[key] {
					continue
				}
				if _, ok := answerAt[key]; !ok && !cfg.NoFaults {
					answerAt[key] = time.Now().Add(time.Duration(rng.Intn(400)) * time.Millisecond)
				}
				if time.Now().Before(answerAt[key]) {
					continue
				}
				h := deploysim.AnswerHints(v.evs, v.st, func(step string, attempt int64) (string, bool) {
					var tool string
					err := db.Pool().QueryRow(ctx, `SELECT tool FROM deploysim_effects WHERE execution_id=$1 AND step=$2 AND attempt=$3 LIMIT 1`, e.ID, step, attempt).Scan(&tool)
					return tool, err == nil
				})
				if h != nil && d.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: e.ID, FlowID: e.Flow, Hints: h}) == nil {
					answered[key] = true
				}
			}
		}
		if all {
			return nil
		}
		sleep(ctx, 50*time.Millisecond)
	}
	return nil
}

// logLengths asks the PostgreSQL EventStore for the length of every log in one query (its
// executions table), so a round re-reads only the logs that grew.
func logLengths(ctx context.Context, db *storespg.DB) (map[string]int64, error) {
	rows, err := db.Pool().Query(ctx, `SELECT id, next_seq FROM executions`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// fault injects one seeded fault: a SIGKILL (the worker is restarted) or a SIGSTOP of up to two
// lease TTLs.
func (f *fleet) fault(ctx context.Context, db *storespg.DB, rng *rand.Rand, res *Result) error {
	i := rng.Intn(len(f.procs))
	p := f.procs[i]
	kill := rng.Intn(2) == 0
	pause := time.Duration(100+rng.Intn(int(2*ttl/time.Millisecond))) * time.Millisecond
	select {
	case <-p.done: // it exited on its own (restarted by the caller): nothing to inject
		return nil
	default:
	}
	switch {
	case kill:
		if p.cmd.Process.Kill() == nil {
			res.Crashes++
		}
		<-p.done
		return f.spawn(i)
	case !p.paused.Load(): // a worker already stopped is not stopped twice (nor counted)
		if err := pauseFor(ctx, db, p, pause); err == nil {
			res.Pauses++
		}
	}
	return nil
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
