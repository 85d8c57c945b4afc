package realfleet

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os/exec"
	"sort"
	"strings"
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

// Result is a real run: the simulation's result shape plus its throughput.
type Result struct {
	deploysim.Result
	Kills, Stops   int
	Elapsed        time.Duration
	ExecutionsPerS float64
}

const ttl = time.Second

type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

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
	repro := fmt.Sprintf("loom-conform deploysim --real --dsn $LOOM_CONFORM_POSTGRES_DSN --workers %d --seed %d", cfg.Workers, cfg.Seed)
	res := Result{Result: deploysim.Result{Scenario: "real", Seed: cfg.Seed, Workers: cfg.Workers, Repro: repro, Violations: []deploysim.Violation{}}}
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
	rng := rand.New(rand.NewSource(cfg.Seed))
	start := time.Now()
	procs := make([]*proc, cfg.Workers)
	born := 0
	spawn := func(i int) error {
		born++
		name := fmt.Sprintf("w%d", born)
		cmd := exec.Command(cfg.Binary, "worker", "--dsn", cfg.DSN, "--schema", schema, "--target", "default", "--name", name, "--ttl", ttl.String())
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
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
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
			if rng.Intn(2) == 0 {
				_ = p.cmd.Process.Kill()
				<-p.done
				res.Kills++
				if err := spawn(i); err != nil {
					return res, err
				}
			} else {
				pause := time.Duration(100+rng.Intn(int(2*ttl/time.Millisecond))) * time.Millisecond
				_ = p.cmd.Process.Signal(syscall.SIGSTOP)
				res.Stops++
				go func() { time.Sleep(pause); _ = p.cmd.Process.Signal(syscall.SIGCONT) }()
			}
			nextFault = time.Now().Add(time.Duration(100+rng.Intn(300)) * time.Millisecond)
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
	check(ctx, &res, db, execs, cfg, repro)
	return res, nil
}

// check runs the invariants a real fleet can observe from its logs and effect ledger.
func check(ctx context.Context, res *Result, db *storespg.DB, execs []deploysim.Execution, cfg Config, repro string) {
	fail := func(id, exec, op, got, want string) {
		res.Violations = append(res.Violations, deploysim.NewViolation(id, exec, op, got, want, repro))
	}
	ref := deploysim.Reference(cfg.Orders, cfg.Batches, 1)
	res.Executions = len(execs)
	for _, e := range execs {
		evs, err := db.Events().Read(ctx, e.ID)
		if err != nil {
			fail("sim/acked-events", e.ID, "Read", err.Error(), "the log")
			continue
		}
		res.Events += len(evs)
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
		st, err := fold.Fold(fold.Current(), nil, evs)
		if err != nil {
			fail("sim/ends-visibly", e.ID, "Fold", err.Error(), "a foldable log")
			continue
		}
		if st.Status != fold.StatusCompleted {
			fail("sim/ends-visibly", e.ID, "Fold", "status "+st.Status, "completed")
			continue
		}
		for k := 0; k+1 < len(evs); k++ {
			snap, _ := fold.Fold(fold.Current(), nil, evs[:k+1])
			got, _ := fold.Fold(fold.Current(), &snap, evs[k+1:])
			if !fold.Equal(st, got) {
				fail("sim/snapshot-every-k", e.ID, "Fold", fmt.Sprintf("fold(snapshot@%d, tail) differs", k), "equal")
				break
			}
		}
		if d := deploysim.SameOutcome(ref[e.ID], st); d != "" {
			fail("sim/single-worker", e.ID, "Fold", "a different final state:\n"+d, "the single-worker run's")
		}
	}
	// at-most-once: a second run of an at-most-once effect is a violation unless a paused worker
	// (SIGSTOP between its lease check and the effect, a window only an effect-side fence closes,
	// I-SIM-3) made one of them.
	rows, err := db.Pool().Query(ctx, `SELECT execution_id, step, count(*) FROM deploysim_effects WHERE tool = 'once' GROUP BY 1, 2 HAVING count(*) > 1`)
	if err == nil {
		var dup []string
		for rows.Next() {
			var ex, step string
			var n int
			if rows.Scan(&ex, &step, &n) == nil {
				dup = append(dup, fmt.Sprintf("%s/%s ×%d", ex, step, n))
			}
		}
		rows.Close()
		sort.Strings(dup)
		if len(dup) > 0 && res.Stops == 0 {
			fail("sim/at-most-once", strings.Join(dup, ","), "Effect", "run more than once", "at most once")
		}
	}
}
