package flowscript

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// Clock is the driver's virtual clock: each reading returns the current time and advances it by
// 1 ms, so every timestamp in a log is a function of the script and the driver.
type Clock struct {
	mu sync.Mutex
	t  int64
}

// NewClock starts a clock at t (epoch ms).
func NewClock(t int64) *Clock { return &Clock{t: t} }

// Now reads the clock.
func (c *Clock) Now() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t++
	return t
}

// Set moves the clock forward to t (never back).
func (c *Clock) Set(t int64) {
	c.mu.Lock()
	if t > c.t {
		c.t = t
	}
	c.mu.Unlock()
}

// ErrCrash is the injected process crash of a "crash" action.
var ErrCrash = errors.New("flowscript: injected crash")

// crashStore fails the n-th Append once armed.
type crashStore struct {
	spi.EventStore
	mu        sync.Mutex
	countdown int
}

func (s *crashStore) Append(ctx context.Context, id string, evs []spi.Envelope, opts spi.AppendOptions) error {
	s.mu.Lock()
	if s.countdown > 0 {
		s.countdown--
		if s.countdown == 0 {
			s.mu.Unlock()
			return ErrCrash
		}
	}
	s.mu.Unlock()
	return s.EventStore.Append(ctx, id, evs, opts)
}

// RunOptions configure RunDriver beyond what the driver says.
type RunOptions struct {
	// Store, when set, is the event store (e.g. one seeded with a recorded log); default a fresh
	// in-memory store.
	Store spi.EventStore
	// Config modifies the runtime configuration after the driver's is applied (hooks, the
	// optional features of a G2 run).
	Config func(*kernel.Config)
	// Mount, when set, is called with the runtime before the first action (an optional carrier
	// mounted on it); the returned Closer is closed after the last.
	Mount func(*kernel.Runtime) (io.Closer, error)
	// Options of the interpreter; SerialBranches is always on for a driver run.
	Options Options
}

// ActionResult is what one driver action returned: the status after it, and its output or
// error ("<type>: <message>").
type ActionResult struct {
	Do     string          `json:"do"`
	Status string          `json:"status,omitempty"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// Run is everything a driver run produced.
type Run struct {
	// Executions lists the execution ids in Log order: the driver's, then its continuations.
	Executions []string
	// Log is every envelope of Executions, execution by execution, in sequence order.
	Log []spi.Envelope
	// State is the folded state of the driver's execution at the driver's profile.
	State   fold.State
	Results []ActionResult
	// Warnings are the runtime's loud reports, in order.
	Warnings []kernel.Warning
}

// ProfileOf returns the driver's profile (current when unset).
func (d *Driver) ProfileOf() fold.Profile {
	if d.Profile == "" {
		return fold.Current()
	}
	p, err := fold.ProfileFor(d.Profile)
	if err != nil {
		return fold.Current()
	}
	return p
}

// Config returns the runtime configuration a driver asks for, on store, with the fakes and
// deterministic ids and clock.
func (d *Driver) Config(store spi.EventStore, clock *Clock) kernel.Config {
	cfg := kernel.Config{
		Store:   store,
		Effects: Effects(),
		Profile: d.ProfileOf(),
		Now:     clock.Now,
		NewID:   kernel.SequentialIDs("ev"),
	}
	if d.Budget != nil {
		cfg.Budget = kernel.Budget(d.Budget)
	}
	if d.Timers {
		cfg.Timers = kernel.NewMemoryTimers()
	}
	if d.Snapshots {
		cfg.Snapshots = memory.NewSnapshotStore()
	}
	return cfg
}

// FeaturesOf returns the kernel feature flags a script lists.
func FeaturesOf(s *Script) kernel.Features {
	var f kernel.Features
	for _, n := range s.Features {
		switch n {
		case "continueAsNew":
			f.ContinueAsNew = true
		case "receive":
			f.Receive = true
		case "select":
			f.Select = true
		}
	}
	return f
}

// RunDriver runs a script under a driver on the reference kernel and returns the log, the
// folded state and each action's result. An action's error is recorded in its result, not
// returned: a golden may show a refusal. The returned error is a harness failure.
func RunDriver(ctx context.Context, s *Script, d *Driver, o RunOptions) (*Run, error) {
	base := o.Store
	if base == nil {
		base = memory.NewEventStore()
	}
	store := &crashStore{EventStore: base}
	clock := NewClock(d.Clock)
	cfg := d.Config(store, clock)
	cfg.Features = FeaturesOf(s)
	var mu sync.Mutex
	var warns []kernel.Warning
	cfg.Warn = func(w kernel.Warning) { mu.Lock(); warns = append(warns, w); mu.Unlock() }
	for _, a := range d.Actions {
		if a.Script != nil {
			f := FeaturesOf(a.Script)
			cfg.Features.ContinueAsNew = cfg.Features.ContinueAsNew || f.ContinueAsNew
			cfg.Features.Receive = cfg.Features.Receive || f.Receive
			cfg.Features.Select = cfg.Features.Select || f.Select
		}
	}
	if o.Config != nil {
		o.Config(&cfg)
	}
	rt, err := kernel.New(cfg)
	if err != nil {
		return nil, err
	}
	opts := o.Options
	opts.SerialBranches = true
	if err := rt.Register(Def(s, opts)); err != nil {
		return nil, err
	}
	for _, a := range d.Actions {
		if a.Script != nil && a.Script.ID != s.ID {
			if err := rt.Register(Def(a.Script, opts)); err != nil {
				return nil, err
			}
		}
	}
	if o.Mount != nil {
		c, err := o.Mount(rt)
		if err != nil {
			return nil, fmt.Errorf("mount: %w", err)
		}
		defer c.Close()
	}
	run := &Run{}
	exec := d.Execution
	for _, a := range d.Actions {
		res, err := act(ctx, rt, s, d, a, store, clock)
		r := ActionResult{Do: a.Do, Status: res.Status, Output: res.Output}
		if res.Error != nil && r.Output == nil {
			r.Output = res.Error
		}
		if err != nil {
			r.Error = errorText(err)
		}
		run.Results = append(run.Results, r)
	}
	for id := exec; ; id = kernel.ContinuedID(id) {
		evs, err := base.Read(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", id, err)
		}
		if len(evs) == 0 {
			break
		}
		run.Executions = append(run.Executions, id)
		run.Log = append(run.Log, evs...)
	}
	mainLog := run.Log
	if len(run.Executions) > 1 {
		mainLog, _ = base.Read(ctx, exec)
	}
	st, err := fold.Fold(d.ProfileOf(), nil, mainLog)
	if err != nil {
		return nil, fmt.Errorf("fold: %w", err)
	}
	run.State = st
	run.Warnings = warns
	return run, nil
}

func act(ctx context.Context, rt *kernel.Runtime, s *Script, d *Driver, a DriverAction, store *crashStore, clock *Clock) (kernel.Result, error) {
	exec := d.Execution
	switch a.Do {
	case "start":
		var in any
		if a.Input != nil {
			in = a.Input
		}
		return rt.Start(ctx, s.ID, exec, in)
	case "resume":
		return rt.Resume(ctx, exec, a.EventType, payloadOr(a.Payload))
	case "resumeAs":
		req := kernel.ResumeAsRequest{FlowID: a.Script.ID, EventType: a.EventType}
		if a.Payload != nil {
			req.Payload = a.Payload
		}
		if a.Transform != nil {
			req.Transform = a.Transform.Apply
		}
		return rt.ResumeAs(ctx, exec, req)
	case "recover":
		return rt.Recover(ctx, exec)
	case "verdict":
		return rt.ResumeWith(ctx, exec, ingress.VerdictRequest(ingress.Verdict{StepID: a.StepID, Attempt: a.Attempt, Verdict: a.Verdict, Output: a.Output}))
	case "fireTimers", "advance":
		clock.Set(a.At)
		if a.Do == "advance" {
			return kernel.Result{}, nil
		}
		fired, err := rt.FireDueTimers(ctx)
		if err != nil {
			return kernel.Result{}, err
		}
		var last kernel.Result
		var errs []error
		for _, f := range fired {
			last = f.Result
			if f.Err != nil {
				errs = append(errs, f.Err)
			}
		}
		return last, errors.Join(errs...)
	case "crash":
		store.mu.Lock()
		store.countdown = int(a.At)
		store.mu.Unlock()
		return kernel.Result{}, nil
	case "cancel":
		return rt.Cancel(ctx, exec, a.Reason)
	case "snapshot":
		// the result is the state the runtime reads back through the snapshot just saved
		if _, err := rt.Snapshot(ctx, exec); err != nil {
			return kernel.Result{}, err
		}
		st, err := rt.State(ctx, exec)
		if err != nil {
			return kernel.Result{}, err
		}
		b, err := fold.CanonicalState(st)
		return kernel.Result{Status: st.Status, Output: b}, err
	case "deliver":
		return rt.Deliver(ctx, exec, a.Topic, a.MessageID, a.Message)
	case "drive":
		id := exec
		if a.Execution != "" {
			id = a.Execution
		}
		return rt.Drive(ctx, id)
	}
	return kernel.Result{}, fmt.Errorf("unknown action %q", a.Do)
}

func payloadOr(p json.RawMessage) json.RawMessage {
	if p == nil {
		return json.RawMessage("null")
	}
	return p
}

// errorText renders an error with its Go type, so a golden records which kind of refusal it was.
func errorText(err error) string {
	t := reflect.TypeOf(err).String()
	if j, ok := err.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) > 0 {
		t = reflect.TypeOf(j.Unwrap()[0]).String()
	}
	return strings.TrimPrefix(t, "*") + ": " + err.Error()
}
