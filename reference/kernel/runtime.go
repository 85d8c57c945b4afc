package kernel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// Runtime is the reference kernel runtime over one EventStore. It is safe for concurrent use on
// different executions; one execution must be driven by one caller at a time (a second driver is
// refused by the store's optimistic concurrency, and fenced when the store fences).
type Runtime struct {
	cfg Config

	mu      sync.RWMutex
	flows   map[string]FlowDef
	budgets map[string]Budget // per-execution budgets (SetExecutionBudget)
}

// New returns a Runtime; cfg.Store is required, every other field has a default.
func New(cfg Config) (*Runtime, error) {
	if cfg.Store == nil {
		return nil, errors.New("kernel: Config.Store is required")
	}
	cfg = cfg.withDefaults()
	if w, p := cfg.SnapshotsWrittenBy.Version(), cfg.Profile.Version(); w != p && p != fold.Current().Version() {
		return nil, fmt.Errorf("kernel: Config.SnapshotsWrittenBy %s with Profile %s: a snapshot of another profile can be read only at the current profile %s (I-KERNEL-24)",
			w, p, fold.Current().Version())
	}
	return &Runtime{cfg: cfg, flows: map[string]FlowDef{}, budgets: map[string]Budget{}}, nil
}

// Register adds a flow. Registering an id twice replaces the code (a deploy).
func (rt *Runtime) Register(def FlowDef) error {
	if def.ID == "" || def.Fn == nil {
		return errors.New("kernel: Register: a flow needs an ID and a Fn")
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.flows[def.ID] = def
	return nil
}

// Flows returns the registered flows, sorted by id (what a carrier may offer its clients).
func (rt *Runtime) Flows() []FlowDef {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	out := make([]FlowDef, 0, len(rt.flows))
	for _, f := range rt.flows {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b FlowDef) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func (rt *Runtime) flow(id string) (FlowDef, error) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	f, ok := rt.flows[id]
	if !ok {
		return FlowDef{}, &UnknownFlowError{FlowID: id}
	}
	return f, nil
}

// Start appends EXECUTION_STARTED for a new execution of flowID and runs it.
func (rt *Runtime) Start(ctx context.Context, flowID, executionID string, input any) (Result, error) {
	def, err := rt.flow(flowID)
	if err != nil {
		return Result{}, err
	}
	if executionID == "" {
		return Result{}, &SyscallError{Syscall: "start", Reason: "empty execution id"}
	}
	raw, err := rawJSON(input)
	if err != nil {
		return Result{}, &SyscallError{Syscall: "start", Reason: "input has no JSON form: " + err.Error()}
	}
	l, err := rt.load(ctx, executionID)
	if err != nil {
		return Result{}, err
	}
	st := l.st
	if st.Sequence >= 0 {
		return Result{}, &ExecutionExistsError{ExecutionID: executionID}
	}
	var codeHash any
	if def.CodeHash != "" && !rt.cfg.Hooks.DropCodeHash {
		codeHash = def.CodeHash
	}
	start := newEvent{eventType: manifest.ExecutionStarted, payload: obj("input", raw, "flowId", def.ID, "codeHash", codeHash)}
	if rt.cfg.Hooks.Sha256FlowHash {
		start.payload = obj("input", raw, "flowId", def.ID, "codeHash", codeHash, "flowHash", "sha256:"+def.ID)
	}
	return rt.runWith(ctx, executionID, def, st, []newEvent{start})
}

// Drive runs an execution over its log. An execution that holds only its EXECUTION_STARTED (e.g.
// the next execution of continueAsNew) runs live. A parked or terminal execution is replayed
// read-only: nothing is appended, and a syscall the log does not answer is a
// *ReplayDivergenceError. A running execution past its start is refused (*NotRunnableError): a
// crashed execution is re-driven by Recover, through the ingress gate.
func (rt *Runtime) Drive(ctx context.Context, executionID string) (Result, error) {
	l, err := rt.load(ctx, executionID)
	if err != nil {
		return Result{}, err
	}
	def, err := rt.flowOf(l)
	if err != nil {
		return Result{}, err
	}
	if l.st.Status == fold.StatusRunning && l.st.Sequence > 0 {
		// A running execution past its start crashed or has a live driver: re-driving it is a
		// recovery, which goes through the ingress gate (Recover) and is recorded.
		return Result{}, &NotRunnableError{ExecutionID: executionID, Status: "running past its start (use Recover to re-drive a crashed execution)"}
	}
	return rt.runWith(ctx, executionID, def, l.st, nil)
}

// flowOf returns the flow that wrote the log (the workflowId of its envelopes).
func (rt *Runtime) flowOf(l loaded) (FlowDef, error) {
	if l.st.Sequence < 0 {
		return FlowDef{}, fmt.Errorf("execution: %w (empty log)", ErrNotFound)
	}
	return rt.flow(l.flowID)
}

// State folds the execution's log (from the latest snapshot when a SnapshotStore is wired).
func (rt *Runtime) State(ctx context.Context, executionID string) (fold.State, error) {
	l, err := rt.load(ctx, executionID)
	return l.st, err
}

// loaded is an execution as read at the start of a call.
type loaded struct {
	st     fold.State
	flowID string
}

// load folds the log, starting from the latest snapshot when one is wired and present.
func (rt *Runtime) load(ctx context.Context, executionID string) (loaded, error) {
	var base *fold.State
	from := int64(0)
	if rt.cfg.Snapshots != nil {
		snap, err := rt.cfg.Snapshots.LoadLatest(ctx, executionID)
		switch {
		case err == nil:
			s, perr := fold.ParseState(snap.State)
			if perr != nil {
				return loaded{}, &StoreError{ExecutionID: executionID, Op: "load snapshot", Err: perr}
			}
			if rt.cfg.SnapshotsWrittenBy.Version() != rt.cfg.Profile.Version() || rt.cfg.Hooks.NormalizeOwnSnapshots {
				// written by an older fold: upgrade it to the current profile's reading (spec §4);
				// a snapshot of the runtime's own profile is read as written (I-KERNEL-24)
				s = fold.NormalizeSnapshotState(s, rt.cfg.SnapshotsWrittenBy)
			}
			base, from = &s, snap.Sequence+1
		case errors.Is(err, spi.ErrNotFound):
		default:
			return loaded{}, &StoreError{ExecutionID: executionID, Op: "load snapshot", Err: err}
		}
	}
	tail, err := rt.readFrom(ctx, executionID, from)
	if err != nil {
		return loaded{}, err
	}
	if len(tail) > 0 && tail[0].Sequence > from {
		// compacted past what the snapshot (if any) covers: the archive is never read (spec §7)
		snap := from - 1
		if base == nil {
			snap = -1
		}
		return loaded{}, &CompactedError{ExecutionID: executionID, FirstSequence: tail[0].Sequence, SnapshotSequence: snap}
	}
	st, err := fold.Fold(rt.cfg.Profile, base, tail)
	if err != nil {
		return loaded{}, &StoreError{ExecutionID: executionID, Op: "fold", Err: err}
	}
	id, err := rt.flowIDOf(ctx, executionID, tail, st.Sequence)
	if err != nil {
		return loaded{}, err
	}
	return loaded{st: st, flowID: id}, nil
}

func (rt *Runtime) readFrom(ctx context.Context, executionID string, from int64) ([]spi.Envelope, error) {
	if from > 0 && spi.Has(manifest.SeamEventStore, rt.cfg.Store, spi.MethodReadRange) {
		evs, err := rt.cfg.Store.(spi.RangeReader).ReadRange(ctx, executionID, from, -1)
		if err != nil {
			return nil, &StoreError{ExecutionID: executionID, Op: "readRange", Err: err}
		}
		return evs, nil
	}
	evs, err := rt.cfg.Store.Read(ctx, executionID)
	if err != nil {
		return nil, &StoreError{ExecutionID: executionID, Op: "read", Err: err}
	}
	for i, e := range evs {
		if e.Sequence >= from {
			return evs[i:], nil
		}
	}
	return nil, nil
}

// Snapshot folds the execution and saves the state to the SnapshotStore (out of band: the log is
// not touched, spec §3).
func (rt *Runtime) Snapshot(ctx context.Context, executionID string) (spi.Snapshot, error) {
	if rt.cfg.Snapshots == nil {
		return spi.Snapshot{}, errors.New("kernel: Snapshot: no SnapshotStore wired")
	}
	l, err := rt.load(ctx, executionID)
	if err != nil {
		return spi.Snapshot{}, err
	}
	st := l.st
	if rt.cfg.Hooks.LossySnapshot {
		st.Variables.ResumePayloads = nil
	}
	b, err := fold.CanonicalState(st)
	if err != nil {
		return spi.Snapshot{}, err
	}
	snap := spi.Snapshot{ExecutionID: executionID, Sequence: st.Sequence, State: b}
	if err := rt.cfg.Snapshots.Save(ctx, snap); err != nil {
		return spi.Snapshot{}, &StoreError{ExecutionID: executionID, Op: "save snapshot", Err: err}
	}
	if rt.cfg.Hooks.SnapshotInLog {
		ev := spi.Envelope{ID: rt.cfg.NewID(), ExecutionID: executionID, EventType: "SNAPSHOT_TAKEN", Sequence: st.Sequence + 1,
			Timestamp: rt.cfg.Now(), Payload: []byte(`{}`)}
		if err := rt.cfg.Store.Append(ctx, executionID, []spi.Envelope{ev}, spi.AppendOptions{}); err != nil {
			return spi.Snapshot{}, err
		}
	}
	return snap, nil
}

// flowIDOf returns the workflowId of the execution's last envelope: every envelope the runtime
// appends carries the flow it runs, so after a resumeAs the target flow is the current one.
func (rt *Runtime) flowIDOf(ctx context.Context, executionID string, tail []spi.Envelope, last int64) (string, error) {
	if len(tail) > 0 {
		return tail[len(tail)-1].WorkflowID, nil
	}
	if last < 0 {
		return "", nil
	}
	var evs []spi.Envelope
	var err error
	if spi.Has(manifest.SeamEventStore, rt.cfg.Store, spi.MethodReadRange) {
		evs, err = rt.cfg.Store.(spi.RangeReader).ReadRange(ctx, executionID, last, last+1)
	} else {
		evs, err = rt.cfg.Store.Read(ctx, executionID)
	}
	if err != nil {
		return "", &StoreError{ExecutionID: executionID, Op: "read", Err: err}
	}
	if len(evs) == 0 {
		return "", nil
	}
	return evs[len(evs)-1].WorkflowID, nil
}

// FlowID returns the id of the flow that wrote the execution's log ("" for an empty log): what a
// carrier needs to re-attach a driver to an execution it did not start in this process.
func (rt *Runtime) FlowID(ctx context.Context, executionID string) (string, error) {
	l, err := rt.load(ctx, executionID)
	return l.flowID, err
}
