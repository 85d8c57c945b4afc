package realfleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	dispatchpg "github.com/loom-kernel/loom-conform/reference/dispatch/postgres"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/spi"
)

// WorkerConfig configures one worker process.
type WorkerConfig struct {
	DSN, Schema string
	Target      string
	Name        string
	Profile     string // event-schema profile; "" = current
	Code        int    // flow-code version; 0 = 1
	TTL         time.Duration
	Poll        time.Duration
	// Broken names a broken worker (BrokenWorkers) this one plays; "" is a correct worker.
	Broken string
	Log    io.Writer
}

const effectsDDL = `CREATE TABLE IF NOT EXISTS deploysim_effects (
	execution_id TEXT NOT NULL, step TEXT NOT NULL, attempt INT NOT NULL, tool TEXT NOT NULL,
	worker TEXT NOT NULL, completed_before BOOLEAN NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())`

// Open opens the shared database of a fleet: stores, dispatcher (registering targets) and the
// effect ledger.
func Open(ctx context.Context, dsn, schema string, targets []string) (*storespg.DB, *dispatchpg.Dispatcher, error) {
	db, err := storespg.Open(ctx, dsn, schema)
	if err != nil {
		return nil, nil, err
	}
	d, err := dispatchpg.New(ctx, db.Pool(), targets)
	if err == nil {
		_, err = db.Pool().Exec(ctx, effectsDDL)
	}
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, d, nil
}

// RunWorker claims packages and drives their executions until ctx ends. A run is heartbeated
// while it lasts; the lease is checked before every effect; a package is acked only when its run
// ended cleanly (parked, ended, refused by the ingress gate).
func RunWorker(ctx context.Context, cfg WorkerConfig) error {
	if cfg.TTL <= 0 {
		cfg.TTL = time.Second
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 20 * time.Millisecond
	}
	if cfg.Code == 0 {
		cfg.Code = 1
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	prof := fold.Current()
	if cfg.Profile != "" {
		p, err := fold.ProfileFor(cfg.Profile)
		if err != nil {
			return fmt.Errorf("worker: --profile: %w", err)
		}
		prof = p
	}
	var hooks kernel.Hooks
	if cfg.Broken != "" {
		b, err := LookupBroken(cfg.Broken)
		if err != nil {
			return fmt.Errorf("worker: --broken: %w", err)
		}
		b.Hooks(&hooks)
	}
	db, d, err := Open(ctx, cfg.DSN, cfg.Schema, []string{cfg.Target})
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	defer db.Close()
	w := &worker{cfg: cfg, pool: db.Pool(), events: db.Events(), d: d}
	effects := flowscript.Effects()
	for tool, def := range effects {
		def.Fn = w.effect(tool, def.Fn)
		effects[tool] = def
	}
	rt, err := kernel.New(kernel.Config{Store: db.Events(), Profile: prof, Effects: effects, Warn: func(kernel.Warning) {}, Hooks: hooks})
	if err != nil {
		return err
	}
	for _, def := range deploysim.FlowDefs(cfg.Code) {
		if err := rt.Register(def); err != nil {
			return err
		}
	}
	w.rt = rt
	fmt.Fprintf(cfg.Log, "worker %s: serving target %s (profile %s, code v%d)\n", cfg.Name, cfg.Target, prof, cfg.Code)
	for ctx.Err() == nil {
		l, ok, err := d.Claim(ctx, spi.ClaimRequest{Worker: cfg.Name, Targets: []string{cfg.Target}, TTL: cfg.TTL})
		if err != nil || !ok {
			if err != nil && ctx.Err() == nil {
				fmt.Fprintf(cfg.Log, "worker %s: claim: %v\n", cfg.Name, err)
			}
			sleep(ctx, cfg.Poll)
			continue
		}
		w.handle(ctx, l)
	}
	return nil
}

type worker struct {
	cfg    WorkerConfig
	pool   *pgxpool.Pool
	events *storespg.EventStore
	d      *dispatchpg.Dispatcher
	rt     *kernel.Runtime

	lease spi.Lease
	lost  atomic.Bool
	// abandon ends the drive of the lease held (handle's run context): its appends fail, so a
	// drive that cannot go on safely records nothing.
	abandon context.CancelFunc
}

var errLeaseLost = errors.New("the worker's lease is lost; it stops")

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// handle drives one package under a heartbeated lease.
func (w *worker) handle(ctx context.Context, l spi.Lease) {
	w.lease = l
	w.lost.Store(false)
	runCtx, cancel := context.WithCancel(ctx)
	w.abandon = cancel
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		for {
			sleep(runCtx, w.cfg.TTL/3)
			if runCtx.Err() != nil {
				return
			}
			if _, err := w.d.Heartbeat(runCtx, w.lease, w.cfg.TTL); errors.Is(err, spi.ErrLeaseLost) {
				w.lost.Store(true)
				cancel()
				return
			}
		}
	}()
	clean := w.drive(runCtx, l)
	cancel()
	<-beat
	if clean && !w.lost.Load() {
		if err := w.d.Ack(ctx, l); err != nil {
			fmt.Fprintf(w.cfg.Log, "worker %s: ack %s: %v\n", w.cfg.Name, l.Package.ExecutionID, err)
		}
	}
}

// drive does what the execution's state and the package's hints call for; it reports whether the
// run ended cleanly.
func (w *worker) drive(ctx context.Context, l spi.Lease) bool {
	exec := l.Package.ExecutionID
	var h deploysim.Hints
	_ = json.Unmarshal(l.Package.Hints, &h)
	st, err := w.rt.State(ctx, exec)
	if err != nil {
		return false
	}
	if st.Sequence >= 0 {
		var recorded string
		_ = json.Unmarshal(st.Variables.Values[fold.VarCodeHash], &recorded)
		if recorded != "" && recorded != deploysim.CodeHash(l.Package.FlowID, w.cfg.Code) {
			fmt.Fprintf(w.cfg.Log, "worker %s: %s recorded under %s: FlowCodeMismatchError, left to another worker\n", w.cfg.Name, exec, recorded)
			return false
		}
	}
	err = h.Drive(ctx, w.rt, l.Package.FlowID, exec, st)
	var se *kernel.StoreError
	var te *kernel.FlowTimeoutError
	if errors.As(err, &se) || errors.As(err, &te) || errors.Is(err, errLeaseLost) || ctx.Err() != nil {
		return false
	}
	return true
}

func (w *worker) effect(tool string, fn kernel.Effect) kernel.Effect {
	return func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
		ctx := ec.Context()
		// A heartbeat or the ledger that fails ends the drive, recording nothing: returned as the
		// effect's error, it was recorded as the step's failure (and the execution's, when the
		// flow does not catch it) by a worker whose fence still held — under load a heartbeat
		// that merely timed out failed the execution. The lease then expires and another worker
		// re-drives it.
		if _, err := w.d.Heartbeat(ctx, w.lease, w.cfg.TTL); err != nil {
			if errors.Is(err, spi.ErrLeaseLost) {
				w.lost.Store(true)
			}
			w.abandon()
			return nil, errLeaseLost
		}
		exec := w.lease.Package.ExecutionID
		done := false
		if evs, err := w.events.Read(ctx, exec); err == nil {
			for _, e := range evs {
				var p struct {
					StepID string `json:"stepId"`
				}
				_ = json.Unmarshal(e.Payload, &p)
				if e.EventType == "STEP_COMPLETED" && p.StepID == ec.StepID() {
					done = true
				}
			}
		}
		if _, err := w.pool.Exec(ctx, `INSERT INTO deploysim_effects (execution_id, step, attempt, tool, worker, completed_before) VALUES ($1,$2,$3,$4,$5,$6)`,
			exec, ec.StepID(), ec.Attempt(), tool, w.cfg.Name, done); err != nil {
			w.abandon()
			return nil, fmt.Errorf("recording the effect: %w", err)
		}
		return fn(ec, in)
	}
}
