package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
)

// Timer is one durable wake-up: the wakeAt a timed park recorded.
type Timer struct {
	ExecutionID string `json:"executionId"`
	WakeAt      int64  `json:"wakeAt"`
}

// TimerStore is the timer seam (spec §5, T1): it keeps scheduled wake-ups durably, so a timer
// survives a restart of the runtime. The wakeAt itself is in the log; the store only says when to
// look.
type TimerStore interface {
	// Schedule records a wake-up; scheduling the same timer twice keeps one.
	Schedule(ctx context.Context, t Timer) error
	// Due returns the timers with WakeAt <= now, ascending by (WakeAt, ExecutionID).
	Due(ctx context.Context, now int64) ([]Timer, error)
	// Cancel forgets a timer (fired, or its park ended otherwise); unknown timers are a no-op.
	Cancel(ctx context.Context, t Timer) error
}

// MemoryTimers is an in-memory TimerStore. It is durable for as long as the value lives: share it
// between runtimes to model a restart.
type MemoryTimers struct {
	mu     sync.Mutex
	timers map[Timer]bool
}

// NewMemoryTimers returns an empty MemoryTimers.
func NewMemoryTimers() *MemoryTimers { return &MemoryTimers{timers: map[Timer]bool{}} }

// Schedule implements TimerStore.
func (m *MemoryTimers) Schedule(_ context.Context, t Timer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.timers[t] = true
	return nil
}

// Due implements TimerStore.
func (m *MemoryTimers) Due(_ context.Context, now int64) ([]Timer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Timer
	for t := range m.timers {
		if t.WakeAt <= now {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].WakeAt != out[j].WakeAt {
			return out[i].WakeAt < out[j].WakeAt
		}
		return out[i].ExecutionID < out[j].ExecutionID
	})
	return out, nil
}

// Cancel implements TimerStore.
func (m *MemoryTimers) Cancel(_ context.Context, t Timer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.timers, t)
	return nil
}

// Len returns the number of scheduled timers.
func (m *MemoryTimers) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.timers)
}

// FiredTimer is the result of firing one due timer.
type FiredTimer struct {
	Timer  Timer
	Result Result
	Err    error // a refusal (the park ended, a stale wakeAt) or a run error
}

// FireDueTimers raises TIMER_FIRED for every due timer of the TimerStore (spec §5): each goes
// through the ingress gate like any resume, which accepts it only for a park that recorded that
// wakeAt. Fired and refused timers are removed from the store.
func (rt *Runtime) FireDueTimers(ctx context.Context) ([]FiredTimer, error) {
	if rt.cfg.Timers == nil {
		return nil, errors.New("kernel: FireDueTimers: no TimerStore wired")
	}
	due, err := rt.cfg.Timers.Due(ctx, rt.cfg.Now())
	if err != nil {
		return nil, fmt.Errorf("kernel: timer store: %w", err)
	}
	out := make([]FiredTimer, 0, len(due))
	for _, t := range due {
		payload, _ := json.Marshal(map[string]int64{"wakeAt": t.WakeAt})
		res, err := rt.Resume(ctx, t.ExecutionID, manifest.TimerFired, payload)
		var refused *ingress.ResumeRefusedError
		if err == nil || errors.As(err, &refused) {
			if cerr := rt.cfg.Timers.Cancel(ctx, t); cerr != nil && err == nil {
				err = cerr
			}
		}
		out = append(out, FiredTimer{Timer: t, Result: res, Err: err})
	}
	return out, nil
}

// RestoreTimers schedules the wakeAt of every parked execution among ids, read from the log — the
// log is the source of truth, so a lost TimerStore entry is rebuilt from it.
func (rt *Runtime) RestoreTimers(ctx context.Context, ids ...string) (int, error) {
	if rt.cfg.Timers == nil {
		return 0, errors.New("kernel: RestoreTimers: no TimerStore wired")
	}
	n := 0
	for _, id := range ids {
		st, err := rt.State(ctx, id)
		if err != nil {
			return n, err
		}
		if w, ok := wakeAtOf(st); ok && st.Status == fold.StatusSuspended {
			if err := rt.cfg.Timers.Schedule(ctx, Timer{ExecutionID: id, WakeAt: w}); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// SafetyFinding is one suspension-safety finding.
type SafetyFinding struct {
	ExecutionID string
	Gate        string
	Code        string // "timeout-without-wakeat", "wakeat-without-timerstore"
	Message     string
}

// SuspensionSafety reports timed parks nothing will wake (spec §5): a park that recorded a
// timeout but no wakeAt (suspend({on, timeout}) without a TimerStore), and, when timersWired is
// false, any park with a wakeAt. It is a pure function of the folded state.
func SuspensionSafety(executionID string, st fold.State, timersWired bool) []SafetyFinding {
	if st.Status != fold.StatusSuspended {
		return nil
	}
	var on struct {
		On      string `json:"on"`
		Timeout *int64 `json:"timeout"`
		WakeAt  *int64 `json:"wakeAt"`
	}
	_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
	switch {
	case on.Timeout != nil && on.WakeAt == nil:
		return []SafetyFinding{{ExecutionID: executionID, Gate: on.On, Code: "timeout-without-wakeat",
			Message: fmt.Sprintf("parked on %q with a %d ms timeout but no durable wakeAt: no timer will ever wake it (wire a TimerStore)", on.On, *on.Timeout)}}
	case on.WakeAt != nil && !timersWired:
		return []SafetyFinding{{ExecutionID: executionID, Gate: on.On, Code: "wakeat-without-timerstore",
			Message: fmt.Sprintf("parked on %q until %d but no TimerStore is wired to raise TIMER_FIRED", on.On, *on.WakeAt)}}
	}
	return nil
}

// SuspensionSafety folds the execution and reports its unwakeable timed park, if any.
func (rt *Runtime) SuspensionSafety(ctx context.Context, executionID string) ([]SafetyFinding, error) {
	st, err := rt.State(ctx, executionID)
	if err != nil {
		return nil, err
	}
	return SuspensionSafety(executionID, st, rt.cfg.Timers != nil), nil
}
