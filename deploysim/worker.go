package deploysim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/spi"
)

var (
	errCrashed   = errors.New("deploysim: the worker crashed")
	errLostConn  = errors.New("deploysim: connection to the store lost")
	errLeaseGone = errors.New("deploysim: the worker's lease is lost; it stops")
)

// FlowCodeMismatchError is a worker refusing to drive an execution recorded under other flow code
// (spec §5: migrating onto fixed code with resumeAs is the documented exit).
type FlowCodeMismatchError struct {
	ExecutionID, Recorded, Worker string
}

func (e *FlowCodeMismatchError) Error() string {
	return fmt.Sprintf("flow code mismatch: execution %q was recorded under code %q, this worker runs %q", e.ExecutionID, e.Recorded, e.Worker)
}

// worker is one reference kernel in the fleet.
type worker struct {
	s       *sim
	name    string
	profile fold.Profile
	code    int
	rt      *kernel.Runtime
	snaps   *snapStore

	dead    bool
	crashed bool
	crash   string // armed crash point: before-effect, after-effect, after-append
	pause   string // armed pause point: in-effect, in-append
	pauseAs string // how the pause ends: short, expired, superseded

	lease spi.Lease
	cur   string
	lost  bool // told its lease is lost
	// skipAck leaves the package unacked (a code mismatch): its lease expires and another worker
	// receives it.
	skipAck bool
	appends int // appends tried in this run

	paused  chan struct{} // closed by the flow goroutine when it blocks
	release chan struct{}
	done    chan struct{}
}

func (s *sim) newWorker(profile string, code int) *worker {
	s.born++
	w := &worker{s: s, name: fmt.Sprintf("w%d-%s-v%d", s.born, profile, code), profile: fold.MustProfile(profile), code: code}
	if s.sc.Snapshots {
		w.snaps = s.snapStoreFor(profile)
		if s.cfg.Broken.ReadNewerSnapshot {
			w.snaps = s.snapStoreFor(s.newestProfile())
		}
		w.snaps.readers = appendUnique(w.snaps.readers, profile)
	}
	effects := flowscript.Effects()
	for tool, def := range effects {
		def.Fn = w.effect(tool, def.Fn)
		effects[tool] = def
	}
	var store spi.EventStore = fencingStore{&workerStore{w: w}}
	if s.cfg.Broken.SkipFence {
		store = &workerStore{w: w}
	}
	cfg := kernel.Config{Store: store, Profile: w.profile, Effects: effects, Now: s.clock,
		NewID: kernel.SequentialIDs(w.name), Warn: func(kernel.Warning) {},
		Hooks: kernel.Hooks{RerunCompletedSteps: s.cfg.Broken.RerunCompletedEffect,
			LossySnapshot: s.cfg.Broken.MigrationDropsResumes && code > s.sc.Code}}
	if w.snaps != nil {
		cfg.Snapshots = w.snaps
	}
	rt, err := kernel.New(cfg)
	if err != nil {
		panic(err)
	}
	for _, d := range flowDefs(code) {
		if err := rt.Register(d); err != nil {
			panic(err)
		}
	}
	w.rt = rt
	return w
}

func appendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// arm draws this turn's faults from the seed.
func (w *worker) arm() {
	s := w.s
	w.crash, w.pause = "", ""
	if s.permille(s.sc.Crash) {
		w.crash = []string{"before-effect", "after-effect", "after-append", "mid-parallel"}[s.rng.Intn(4)]
	}
	if s.permille(s.sc.Pause) && !s.anyPaused() {
		w.pause = []string{"in-effect", "in-append"}[s.rng.Intn(2)]
		w.pauseAs = []string{"short", "expired", "superseded"}[s.rng.Intn(3)]
	}
}

func (s *sim) anyPaused() bool {
	for _, w := range s.workers {
		if w.paused != nil {
			return true
		}
	}
	return false
}

// turn claims one package and drives it; it reports whether there was one.
func (w *worker) turn(ctx context.Context) bool {
	if w.dead || w.paused != nil {
		return false
	}
	s := w.s
	l, ok, err := s.disp.Claim(ctx, spi.ClaimRequest{Worker: w.name, Targets: []string{"default"}, TTL: leaseTTL * 1e6})
	if err != nil || !ok {
		return false
	}
	s.recordClaim(w, l)
	w.lease, w.cur, w.lost, w.skipAck, w.appends = l, l.Package.ExecutionID, false, false, 0
	w.paused, w.release, w.done = make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(w.done)
		w.drive(ctx, l)
	}()
	select {
	case <-w.done:
		w.paused = nil
		w.finish(ctx)
	case <-w.paused:
		s.res.Pauses++
		switch w.pauseAs {
		case "short":
			s.advance(int64(s.rng.Intn(leaseTTL / 2)))
			w.wake()
		case "expired":
			s.advance(leaseTTL + 1 + int64(s.rng.Intn(leaseTTL)))
			w.wake()
		}
		// superseded: stays paused while the fleet moves on; woken later
	}
	return true
}

// wake releases a paused worker and waits for its run to end.
func (w *worker) wake() {
	close(w.release)
	<-w.done
	w.paused = nil
	w.finish(context.Background())
}

// block is called by the flow goroutine at an armed pause point.
func (w *worker) block() {
	w.pause = ""
	close(w.paused)
	<-w.release
}

func (w *worker) finish(ctx context.Context) {
	if w.crashed {
		w.dead = true
		w.s.res.Crashes++
		return
	}
	if w.skipAck {
		return
	}
	if err := w.s.disp.Ack(ctx, w.lease); err == nil {
		if r := w.s.leases[w.lease.Token]; r != nil {
			r.acked = true
		}
	}
}

// heartbeat renews the lease; false when it is lost (the worker is told, and stops unless broken).
func (w *worker) heartbeat() bool {
	l, err := w.s.disp.Heartbeat(context.Background(), w.lease, leaseTTL*1e6)
	if err != nil {
		w.lost = true
		if r := w.s.leases[w.lease.Token]; r != nil {
			r.lost = true
		}
		return w.s.cfg.Broken.AppendAfterLeaseLost
	}
	if r := w.s.leases[w.lease.Token]; r != nil {
		r.expires = l.ExpiresAt
	}
	w.lease.ExpiresAt = l.ExpiresAt
	return true
}

func (w *worker) effect(tool string, fn kernel.Effect) kernel.Effect {
	return func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
		if w.crashed {
			return nil, errCrashed
		}
		if w.pause == "in-effect" {
			w.block()
		}
		if !w.heartbeat() {
			return nil, errLeaseGone
		}
		if w.crash == "before-effect" || (w.crash == "mid-parallel" && strings.HasPrefix(ec.StepID(), "part-b")) {
			w.crash, w.crashed = "", true
			return nil, errCrashed
		}
		w.s.recordEffect(w, ec.StepID(), ec.Attempt(), tool)
		out, err := fn(ec, in)
		if w.crash == "after-effect" {
			w.crash, w.crashed = "", true
		}
		return out, err
	}
}

// Hints are what an ExecutionPackage's resume hints carry: the start input, a gate answer, or an
// in-doubt verdict. The simulation's workers and the real fleet's read them alike.
type Hints struct {
	Input  json.RawMessage `json:"input"`
	Resume *struct {
		EventType string          `json:"eventType"`
		Payload   json.RawMessage `json:"payload"`
	} `json:"resume"`
	Verdict *ingress.Verdict `json:"verdict"`
}

// Drive does what an execution's state st and the hints call for on rt: start it, recover a
// running one, or answer its park with the verdict or the resume. Anything else does nothing.
func (h Hints) Drive(ctx context.Context, rt *kernel.Runtime, flowID, exec string, st fold.State) error {
	var err error
	switch {
	case st.Sequence < 0:
		_, err = rt.Start(ctx, flowID, exec, h.Input)
	case st.Status == fold.StatusRunning:
		_, err = rt.Recover(ctx, exec)
	case st.Status == fold.StatusSuspended && h.Verdict != nil:
		_, err = rt.ResumeWith(ctx, exec, ingress.VerdictRequest(*h.Verdict))
	case st.Status == fold.StatusSuspended && h.Resume != nil:
		_, err = rt.Resume(ctx, exec, h.Resume.EventType, h.Resume.Payload)
	}
	return err
}

// drive runs on the flow's side: it reads the execution from the shared store and does what its
// state and the package's hints call for.
func (w *worker) drive(ctx context.Context, l spi.Lease) {
	s := w.s
	exec := l.Package.ExecutionID
	var h Hints
	_ = json.Unmarshal(l.Package.Hints, &h)
	if s.cfg.Broken.AckWithoutDriving && l.Delivery > 1 {
		return
	}
	st, err := w.rt.State(ctx, exec)
	if err != nil {
		w.skipAck = true
		return
	}
	if st.Sequence >= 0 {
		var recorded string
		_ = json.Unmarshal(st.Variables.Values[fold.VarCodeHash], &recorded)
		if mine := codeHash(l.Package.FlowID, w.code); recorded != "" && recorded != mine {
			if !s.sc.Migrate {
				s.res.Mismatches++
				w.skipAck = true // left to a worker running the recorded code: the lease expires
				return
			}
			w.migrate(ctx, exec, l.Package.FlowID, st, h)
			w.snapshot(ctx, exec)
			return
		}
	}
	err = h.Drive(ctx, w.rt, l.Package.FlowID, exec, st)
	// A run the store cut short (crash, lost connection, lost lease, fenced) is not acked: the
	// lease expires and the package is delivered again. Anything else — a park, an end, a refusal
	// by the ingress gate — settles the package.
	var se *kernel.StoreError
	if errors.As(err, &se) || errors.Is(err, errLostConn) || errors.Is(err, errLeaseGone) || errors.Is(err, errCrashed) {
		w.skipAck = true
		return
	}
	w.snapshot(ctx, exec)
}

// migrate moves an execution recorded under older code onto this worker's code (resumeAs with a
// state transform: EXECUTION_MIGRATED records the verdict, spec §6).
func (w *worker) migrate(ctx context.Context, exec, flow string, st fold.State, h Hints) {
	req := kernel.ResumeAsRequest{FlowID: flow, Transform: func(in json.RawMessage) (json.RawMessage, error) {
		return mustJSON(map[string]any{"migratedFrom": in, "code": w.code}), nil
	}}
	switch st.Status {
	case fold.StatusSuspended:
		if h.Resume == nil {
			return // a parked execution migrates with its gate's answer, which the driver dispatches
		}
		req.EventType, req.Payload = h.Resume.EventType, h.Resume.Payload
	case fold.StatusRunning:
	default:
		return
	}
	_, err := w.rt.ResumeAs(ctx, exec, req)
	var se *kernel.StoreError
	if errors.As(err, &se) || errors.Is(err, errLostConn) || errors.Is(err, errLeaseGone) || errors.Is(err, errCrashed) {
		w.skipAck = true
		return
	}
	if err == nil {
		w.s.res.Migrations++
	}
}

func (w *worker) snapshot(ctx context.Context, exec string) {
	if w.snaps == nil || w.crashed || w.s.rng.Intn(2) == 0 {
		return
	}
	_, _ = w.rt.Snapshot(ctx, exec)
}
