package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// Rule names.
const (
	RulePlacement  = "placement-compat"
	RuleSuspension = "suspension-safety"
)

// Finding is one violated rule.
type Finding struct {
	Rule    string     `json:"rule"`
	Level   spec.Level `json:"level"`
	Clauses []string   `json:"clauses"`
	Flow    string     `json:"flow,omitempty"`
	// Execution and Gate are set for findings about a live execution.
	Execution string `json:"execution,omitempty"`
	Gate      string `json:"gate,omitempty"`
	Target    string `json:"target,omitempty"`
	Message   string `json:"message"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s [%s] %s: %s", f.Rule, strings.Join(f.Clauses, " "), f.Level, f.Message)
}

// Report is the outcome of verifying a deployment.
type Report struct {
	Targets  []string  `json:"targets"`
	Findings []Finding `json:"findings"`
}

// OK reports whether no MUST rule is violated (SHOULD findings are warnings).
func (r Report) OK() bool {
	for _, f := range r.Findings {
		if f.Level == spec.Must {
			return false
		}
	}
	return true
}

var (
	placementClauses  = []string{"S6.placement.compute-target", "I-DISPATCH-7"}
	suspensionClauses = []string{"S5.timer.unwired-reported", "I-DISPATCH-8"}
)

// PlacementError refuses a flow pinned to an unregistered target.
type PlacementError struct {
	Flow       string
	Target     string
	Registered []string
}

func (e *PlacementError) Error() string {
	if len(e.Registered) == 0 {
		return fmt.Sprintf("placement-compat: flow %q pins computeTarget %q, but no dispatcher target is registered", e.Flow, e.Target)
	}
	return fmt.Sprintf("placement-compat: flow %q pins computeTarget %q, which is not a registered dispatcher target (registered: %s)",
		e.Flow, e.Target, strings.Join(e.Registered, ", "))
}

// Is makes errors.Is(err, spi.ErrUnknownTarget) true.
func (e *PlacementError) Is(target error) bool { return target == spi.ErrUnknownTarget }

// Placement checks one pin against the registered targets: nil when target is "" (unpinned) or
// registered, else a *PlacementError naming it.
func Placement(flow, target string, registered []string) error {
	if target == "" || slices.Contains(registered, target) {
		return nil
	}
	return &PlacementError{Flow: flow, Target: target, Registered: slices.Clone(registered)}
}

// CheckPlacement asks the dispatcher for its targets and checks the pin: the library call a start
// path makes before it writes anything. A nil dispatcher registers no target.
func CheckPlacement(ctx context.Context, d spi.ExecutionDispatcher, flow, target string) error {
	if target == "" {
		return nil
	}
	var ts []string
	if d != nil {
		var err error
		if ts, err = d.Targets(ctx); err != nil {
			return fmt.Errorf("placement-compat: listing the dispatcher's targets: %w", err)
		}
	}
	return Placement(flow, target, ts)
}

// Deployment verifies dep against the registered targets (nil = dep.Targets): every pinned flow
// must resolve (MUST), and a flow with timed suspends on a deployment without a TimerStore is
// reported (SHOULD).
func Deployment(dep DeploymentSpec, registered []string) Report {
	if registered == nil {
		registered = dep.Targets
	}
	rep := Report{Targets: slices.Clone(registered), Findings: []Finding{}}
	for _, f := range dep.Flows {
		var pe *PlacementError
		if err := Placement(f.ID, f.ComputeTarget, registered); errors.As(err, &pe) {
			rep.Findings = append(rep.Findings, Finding{Rule: RulePlacement, Level: spec.Must, Clauses: placementClauses,
				Flow: f.ID, Target: f.ComputeTarget, Message: pe.Error()})
		}
		if len(f.TimedSuspends) > 0 && !dep.TimerStore {
			rep.Findings = append(rep.Findings, Finding{Rule: RuleSuspension, Level: spec.Should, Clauses: suspensionClauses, Flow: f.ID,
				Message: fmt.Sprintf("suspension-safety: flow %q makes timed suspends (%s) but the deployment wires no TimerStore: they are never woken",
					f.ID, strings.Join(f.TimedSuspends, ", "))})
		}
	}
	return rep
}

// Executions adds the kernel's suspension-safety findings for live executions (spec §5): a park
// with a timeout but no wakeAt, or a wakeAt with no TimerStore wired.
func Executions(ctx context.Context, rt *kernel.Runtime, ids []string) ([]Finding, error) {
	out := []Finding{}
	for _, id := range ids {
		fs, err := rt.SuspensionSafety(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("suspension-safety: %s: %w", id, err)
		}
		for _, f := range fs {
			out = append(out, Finding{Rule: RuleSuspension, Level: spec.Should, Clauses: suspensionClauses,
				Execution: f.ExecutionID, Gate: f.Gate, Message: "suspension-safety: " + f.ExecutionID + ": " + f.Message})
		}
	}
	return out, nil
}
