package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"
)

// MeterCeiling is the sanity ceiling of a single measurement (spec §5; the userspace rule's
// bound, I-KERNEL-61).
const MeterCeiling = userspace.MaxMetered

func validMeter(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 && v <= MeterCeiling
}

// admission is admission control (spec §8): before a live effect runs, a spent budget refuses it.
// Dimensions are checked in a fixed order so the refusal is deterministic. r.mu is held.
func (r *run) admission(stepID string) *QuotaExceededError {
	b := r.rt.budgetOf(r.execID)
	if len(b) == 0 || r.rt.cfg.Hooks.AdmissionIgnored {
		return nil
	}
	dims := make([]string, 0, len(b))
	for d := range b {
		dims = append(dims, d)
	}
	sort.Strings(dims)
	for _, d := range dims {
		if used := r.resources[d]; used >= b[d] {
			return &QuotaExceededError{StepID: stepID, Dimension: d, Limit: b[d], Used: used}
		}
	}
	return nil
}

// Grant is a negotiated budget grant (spec §8): advisory, never enforced.
type Grant struct {
	Dimension string  `json:"dimension"`
	Requested float64 `json:"requested"`
	Granted   float64 `json:"granted"`
}

// NegotiateBudget resolves a bounded grant for dimension through the decision seam: the grant is
// recorded as DECISION_RECORDED (id "budget:<dimension>#<k>", k counting this dimension's calls)
// and served on replay. It is advisory: nothing enforces it (spec §8).
func (c *Context) NegotiateBudget(dimension string, request float64) (Grant, error) {
	if !validMeter(request) {
		return Grant{}, &SyscallError{Syscall: "negotiateBudget", Reason: fmt.Sprintf("request %v is not a finite, non-negative amount", request)}
	}
	r := c.r
	r.mu.Lock()
	k := r.budgetIdx[dimension]
	r.budgetIdx[dimension] = k + 1
	limit, capped := r.rt.budgetOf(r.execID)[dimension]
	used := r.resources[dimension]
	r.mu.Unlock()
	if r.rt.cfg.Hooks.NegotiateRecomputed {
		g := Grant{Dimension: dimension, Requested: request, Granted: request}
		if capped {
			g.Granted = math.Max(0, math.Min(request, limit-used))
		}
		return g, nil
	}
	id := fmt.Sprintf("budget:%s#%d", dimension, k)
	choice, err := c.Decide(id, func(context.Context) (any, error) {
		g := request
		if capped {
			g = math.Max(0, math.Min(request, limit-used))
		}
		return Grant{Dimension: dimension, Requested: request, Granted: g}, nil
	}, WithContext(map[string]any{"dimension": dimension, "request": request}))
	if err != nil {
		return Grant{}, err
	}
	var g Grant
	if err := json.Unmarshal(choice, &g); err != nil {
		return Grant{}, &SyscallError{Syscall: "negotiateBudget", Reason: "recorded grant is not a grant: " + err.Error()}
	}
	return g, nil
}

// SetExecutionBudget gives one execution its own budget in place of Config.Budget (spec §8: a
// Budget MAY cap any dimension; the wire's per-execution setting, I-WIRE-17). It is held by this
// runtime, not recorded: set it before the execution's first effect on every runtime that drives
// it; the runtime keeps it for its lifetime. A nil budget returns the execution to Config.Budget.
func (rt *Runtime) SetExecutionBudget(executionID string, b Budget) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if b == nil {
		delete(rt.budgets, executionID)
		return
	}
	rt.budgets[executionID] = b
}

// budgetOf is the budget admission control applies to an execution.
func (rt *Runtime) budgetOf(executionID string) Budget {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	if b, ok := rt.budgets[executionID]; ok {
		return b
	}
	return rt.cfg.Budget
}
