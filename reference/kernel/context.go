package kernel

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// Context is the syscall surface a flow sees (spec §2). Every method first looks in the log; what
// the log answers is served, the rest runs live and is recorded. A Context is used by one
// goroutine; Parallel hands each branch its own.
type Context struct {
	r *run
	// inParallel is set in a branch of a parallel with more than one branch (and below it): an
	// emit there may race a sibling's effect, so it is never stamped (spec §3 example 7).
	inParallel bool
	// Inside a parallel branch the live-work test of spec §3 reads the branch's causal past only:
	// the segment's flag when the parallel began (entryLive) or live work of this branch
	// (branchLive). A sibling's live work is timing, not cause (I-KERNEL-18).
	entryLive, branchLive bool
	// emitN is the branch's own per-digest emit count (spec §3's n) inside a parallel branch: a
	// copy of the count when the parallel began plus this branch's emits, so a sibling's emits,
	// whose order against this branch's is timing, never shift it (I-KERNEL-18). nil outside a
	// branch: the run's count is used.
	emitN map[string]int64
}

// emitCounts is the per-digest emit count this Context reads and advances. r.mu is held.
func (c *Context) emitCounts() map[string]int64 {
	if c.emitN != nil {
		return c.emitN
	}
	return c.r.emitN
}

// segmentLive is the live-work test of spec §3 as this Context sees it. r.mu is held.
func (c *Context) segmentLive() bool {
	if c.inParallel {
		return c.entryLive || c.branchLive
	}
	return c.r.segLive
}

// markLive records live work of the current segment. r.mu is held.
func (c *Context) markLive() {
	c.r.segLive = true
	c.branchLive = true
}

// Context returns the run's context: cancelled when the run is abandoned.
func (c *Context) Context() context.Context { return c.r.ctx }

// ExecutionID returns the id of the execution being run.
func (c *Context) ExecutionID() string { return c.r.execID }

// Segment returns the number of gate passthroughs consumed so far (spec §3): the segment the next
// emit's digest is computed in.
func (c *Context) Segment() int {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	return c.r.segment
}

// enter is called at the top of every syscall with r.mu held: a run that may no longer write, or
// that already parked, unwinds the calling goroutine.
func (c *Context) enter() {
	r := c.r
	if r.closed != nil {
		panic(abortSignal{r.closed})
	}
	if r.parked || r.continuedTo != "" {
		panic(parkSignal{})
	}
}

// reservedPrefix marks ids and gates that belong to the kernel (spec §5).
const reservedPrefix = "__loom_"

func isReserved(id string) bool { return strings.HasPrefix(id, reservedPrefix) }

// Task is what execute runs: a step of some kind whose effect resolves by ToolID at the effect
// boundary (spec §2), or an inline Fn.
type Task struct {
	// ID is the step id: unique per execution; a deliberate retry mints a new one (ADR 0061).
	ID string
	// Kind is recorded on STEP_STARTED (step, llm, agent, tool, ui, ...); the events stay STEP_*.
	Kind string
	// ToolID resolves the effect in Config.Effects when Fn is nil.
	ToolID string
	// Fn is an inline effect (run's shape).
	Fn Effect
	// Errors is the step-level typed failure map; it wins over the effect's (spec §4.1).
	Errors map[string]PayloadSchema
	// Timeout bounds the effect; a timeout is an untyped failure a re-run does not serve.
	Timeout time.Duration
	// AtMostOnce parks the execution in doubt instead of re-running an effect whose outcome a
	// crash left unknown (K9.3).
	AtMostOnce bool
}

// Run is the step-shaped alias of Execute (spec §2): Execute(Task{ID: stepID, Fn: fn}, input).
func (c *Context) Run(stepID string, fn Effect, input any) (json.RawMessage, error) {
	if c.r.rt.cfg.Hooks.RunWritesKind {
		return c.execute("run", Task{ID: stepID, Fn: fn, Kind: "agent"}, input)
	}
	return c.execute("run", Task{ID: stepID, Fn: fn}, input)
}

// Execute runs a task durably (spec §2): a completed task is served from the log and its effect
// does not run again; a typed failure is served as the same *TypedFailure; an untyped failure or
// an unknown outcome runs again (at least once).
func (c *Context) Execute(task Task, input any) (json.RawMessage, error) {
	return c.execute("execute", task, input)
}
