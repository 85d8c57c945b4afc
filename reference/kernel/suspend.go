package kernel

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// SuspendConfig is spec §5's SuspendConfig.
type SuspendConfig struct {
	// On is the gate: the resume event type that answers this park.
	On string
	// Timeout makes the park timed. With a TimerStore wired the runtime derives wakeAt = now +
	// Timeout; without one the timeout is recorded but nothing wakes the park (SuspensionSafety
	// reports it).
	Timeout time.Duration
	// WakeAt (epoch ms) is an explicit durable wake time.
	WakeAt int64
	// CorrelationKey is optional metadata for an external dispatcher; the runtime never matches on it.
	CorrelationKey string
}

// TimerGate is the gate sleep and sleepUntil park on: only a TIMER_FIRED for the recorded wakeAt
// wakes them (I-KERNEL-7).
const TimerGate = manifest.TimerFired

// Suspend parks the execution durably until a resume answers the gate (spec §5). On a re-run a gate
// that was answered passes through with its own recorded payload, in order (the _resumePayloads
// fold); a gate beyond the recorded answers parks again. Each passthrough starts a new emit segment.
func (c *Context) Suspend(cfg SuspendConfig) (json.RawMessage, error) {
	switch {
	case cfg.On == "":
		return nil, &SyscallError{Syscall: "suspend", Reason: "empty gate (SuspendConfig.On)"}
	case isReserved(cfg.On):
		return nil, &SyscallError{Syscall: "suspend", Reason: fmt.Sprintf("gate %q is reserved for the kernel", cfg.On)}
	case manifest.IsKernelEventType(cfg.On) && cfg.On != manifest.TimerFired:
		return nil, &SyscallError{Syscall: "suspend", Reason: fmt.Sprintf("gate %q is a kernel event type: no resume could ever answer it", cfg.On)}
	case cfg.On == manifest.TimerFired && cfg.WakeAt <= 0 && cfg.Timeout <= 0:
		return nil, &SyscallError{Syscall: "suspend", Reason: "a TIMER_FIRED gate needs a wakeAt"}
	}
	return c.suspend("suspend", cfg)
}

// Sleep parks for d (spec §5, T1): it records a durable wakeAt = now + d on the timer gate.
func (c *Context) Sleep(d time.Duration) error {
	c.r.mu.Lock()
	now := c.r.rt.cfg.Now()
	if c.r.rt.cfg.Hooks.SleepRelative {
		now = 0
	}
	c.r.mu.Unlock()
	_, err := c.suspend("sleep", SuspendConfig{On: c.timerGate(), WakeAt: now + d.Milliseconds()})
	return err
}

// timerGate is the gate sleep and sleepUntil park on.
func (c *Context) timerGate() string {
	if g := c.r.rt.cfg.Choices.SleepGate; g != "" {
		return g
	}
	return TimerGate
}

// SleepUntil parks until wakeAt (epoch ms).
func (c *Context) SleepUntil(wakeAt int64) error {
	_, err := c.suspend("sleepUntil", SuspendConfig{On: c.timerGate(), WakeAt: wakeAt})
	return err
}

func (c *Context) suspend(syscall string, cfg SuspendConfig) (json.RawMessage, error) {
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	c.enter()
	if c.inParallel {
		return nil, &SyscallError{Syscall: syscall, Reason: "a park inside a parallel branch is not supported (I-KERNEL-6)"}
	}
	if r.gateIdx < len(r.resumes) { // answered: pass through with the recorded payload
		p := r.resumes[r.gateIdx]
		r.gateIdx++
		r.segment++
		r.segLive = false
		return p, nil
	}
	if r.readOnly && (r.startStatus != fold.StatusSuspended || r.parkedOn != cfg.On) {
		panic(abortSignal{r.divergence(manifest.ExecutionSuspended + " on " + cfg.On)})
	}
	if r.readOnly || (r.startStatus == fold.StatusSuspended && r.parkedOn == cfg.On) {
		// the log is already parked here: nothing to append
		r.parked, r.parkedGate = true, cfg.On
		panic(parkSignal{})
	}
	var timeout, wakeAt any
	if cfg.Timeout > 0 {
		timeout = cfg.Timeout.Milliseconds()
	}
	switch {
	case cfg.WakeAt > 0:
		wakeAt = cfg.WakeAt
	case cfg.Timeout > 0 && r.rt.cfg.Timers != nil:
		wakeAt = r.rt.cfg.Now() + cfg.Timeout.Milliseconds()
	}
	if w, ok := wakeAt.(int64); ok && r.rt.cfg.Hooks.WakeAtRelative && cfg.WakeAt <= 0 {
		wakeAt = w - r.rt.cfg.Now()
	}
	var corr any
	if cfg.CorrelationKey != "" && !r.rt.cfg.Hooks.CorrelationDropped {
		corr = cfg.CorrelationKey
	}
	if cfg.CorrelationKey == "" && r.rt.cfg.Hooks.CorrelationRequired {
		return nil, &SyscallError{Syscall: syscall, Reason: "no correlationKey"}
	}
	logged := wakeAt
	if r.rt.cfg.Hooks.WakeAtNotLogged {
		logged = nil
	}
	r.mustAppend(newEvent{eventType: manifest.ExecutionSuspended, payload: obj("on", cfg.On, "timeout", timeout, "wakeAt", logged, "correlationKey", corr)})
	r.parked, r.parkedGate = true, cfg.On
	if w, ok := wakeAt.(int64); ok && r.rt.cfg.Timers != nil && !r.rt.cfg.Hooks.TimersNotScheduled {
		if err := r.rt.cfg.Timers.Schedule(r.ctx, Timer{ExecutionID: r.execID, WakeAt: w}); err != nil {
			r.rt.cfg.Warn(Warning{ExecutionID: r.execID, Code: "timer-schedule-failed", Clauses: []string{"S5.timer.durable-wakeat"},
				Message: fmt.Sprintf("wakeAt %d is in the log but the TimerStore refused it: %v (RestoreTimers rebuilds it)", w, err)})
		}
	}
	panic(parkSignal{})
}
