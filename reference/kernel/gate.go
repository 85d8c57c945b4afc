package kernel

import (
	"context"
	"encoding/json"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/spi"
)

// ResumeSchema is one resumeSchemas entry (spec §5): it parses a gate's payload and returns the
// parsed value, which is what gets recorded.
type ResumeSchema = ingress.Parser

// IngressOptions wires the optional identity checks of the resume gate (spec §5). The zero value
// wires none; the gate itself (kernel namespace, parked gate, in-doubt verdicts, ...) always runs.
type IngressOptions struct {
	Authenticator ingress.ResumeAuthenticator
	Authorizer    ingress.Authorizer
}

// Resume delivers a resume event to a parked execution (spec §5) and re-runs it. The request goes
// through the ingress gate first — authenticator, ingress rules, the flow's resumeSchemas shape
// gate — and a refusal (*ingress.ResumeRefusedError, *ingress.ResumePayloadValidationError) appends
// nothing.
func (rt *Runtime) Resume(ctx context.Context, executionID, eventType string, payload json.RawMessage) (Result, error) {
	return rt.ingest(ctx, executionID, ingress.Request{EventType: eventType, Payload: payload})
}

// ResumeRequest is the full form of a resume, for the overrides Resume does not take.
type ResumeRequest = ingress.Request

// ResumeWith is Resume with a full request (discardLegacyAnswers, a verdict built by
// ingress.VerdictRequest, ...).
func (rt *Runtime) ResumeWith(ctx context.Context, executionID string, req ResumeRequest) (Result, error) {
	req.As = nil
	return rt.ingest(ctx, executionID, req)
}

// Recover re-drives a crashed execution (running, no live driver): EXECUTION_RECOVERED is
// appended and the flow re-runs from the log. A parked or terminal execution is refused.
func (rt *Runtime) Recover(ctx context.Context, executionID string) (Result, error) {
	if rt.cfg.Hooks.RecoverRefused {
		return Result{}, &SyscallError{Syscall: "recover", Reason: "the execution belongs to the worker that started it"}
	}
	return rt.ingest(ctx, executionID, ingress.Request{EventType: manifest.ExecutionRecovered})
}

// ResumeAsRequest moves an execution onto another flow (K11.3).
type ResumeAsRequest struct {
	// FlowID is the target flow; it must be registered.
	FlowID string
	// EventType / Payload: the gate's answer when the execution is parked (required then).
	EventType string
	Payload   json.RawMessage
	// Transform optionally maps the current _input to the migrated input (K11.5); its result is
	// recorded as EXECUTION_MIGRATED.migratedInput, and an error refuses with nothing appended.
	Transform func(input json.RawMessage) (json.RawMessage, error)
}

// ResumeAs re-runs the execution on the target flow (spec §5 resumeAs): onto a crashed or
// terminal execution only the kernel-namespace rule applies; onto a parked one every resume rule
// does, with the target flow's resumeSchemas.
func (rt *Runtime) ResumeAs(ctx context.Context, executionID string, req ResumeAsRequest) (Result, error) {
	def, err := rt.flow(req.FlowID)
	if err != nil {
		return Result{}, err
	}
	return rt.ingest(ctx, executionID, ingress.Request{
		EventType: req.EventType, Payload: req.Payload,
		As: &ingress.ResumeAs{FlowID: def.ID, CodeHash: def.CodeHash, ResumeSchemas: def.ResumeSchemas, Transform: req.Transform},
	})
}

// ingest runs a request through the ingress gate and, when accepted, appends its plan as one
// atomic batch and re-runs the flow.
func (rt *Runtime) ingest(ctx context.Context, executionID string, req ingress.Request) (Result, error) {
	if rt.cfg.Hooks.RouteByCorrelation {
		executionID = rt.routeByCorrelation(ctx, executionID)
	}
	req.ExecutionID = executionID
	v, err := rt.readGate(ctx, executionID)
	if err != nil {
		return Result{}, err
	}
	if v.empty {
		return Result{}, &ingress.ResumeRefusedError{Reason: ingress.ReasonNotSuspended, EventType: req.EventType,
			Detail: "the execution has no log"}
	}
	st, facts := v.st, v.facts
	def, err := rt.flow(v.flowID)
	if req.As != nil && !rt.cfg.Hooks.ResumeAsRunsSource {
		def, err = rt.flow(req.As.FlowID)
	}
	if err != nil {
		return Result{}, err
	}
	opts := ingress.Options{Authenticator: rt.cfg.Ingress.Authenticator, Authorizer: rt.cfg.Ingress.Authorizer,
		ResumeSchemas: def.ResumeSchemas}
	if req.As != nil && rt.cfg.Hooks.AuthorizerSkipsAs {
		opts.Authorizer = nil
	}
	plan, err := ingress.Evaluate(ctx, st, facts, req, opts)
	if rt.cfg.Hooks.GateOptIn && opts.Authenticator == nil && req.As == nil && req.EventType != manifest.ExecutionRecovered {
		plan, err = ingress.Plan{Appends: []ingress.Append{{EventType: req.EventType, Payload: req.Payload},
			{EventType: manifest.ExecutionResumed, Payload: req.Payload}}}, nil
	}
	if err != nil {
		return Result{ExecutionID: executionID, Status: st.Status}, err
	}
	rt.warnLegacy(executionID, facts)
	pre := make([]newEvent, len(plan.Appends))
	for i, a := range plan.Appends {
		pre[i] = newEvent{eventType: a.EventType, payload: a.Payload, metadata: a.Metadata}
	}
	if n := len(pre); rt.cfg.Choices.ResumedFirst && n >= 2 && pre[n-1].eventType == manifest.ExecutionResumed && pre[n-2].metadata == nil {
		pre[n-2], pre[n-1] = pre[n-1], pre[n-2]
	}
	if rt.cfg.Hooks.MigratedDropped && len(pre) > 0 && pre[0].eventType == manifest.ExecutionMigrated {
		pre = pre[1:]
	}
	if rt.cfg.Timers != nil && st.Status == fold.StatusSuspended {
		if w, ok := wakeAtOf(st); ok {
			defer rt.cfg.Timers.Cancel(context.WithoutCancel(ctx), Timer{ExecutionID: executionID, WakeAt: w}) //nolint:errcheck // a stale timer is refused by the gate
		}
	}
	if legacy := ingress.LegacyEntries(facts); rt.cfg.Hooks.LegacyEntriesSkipped && len(legacy) > 0 {
		st.Variables.ResumePayloads = st.Variables.ResumePayloads[legacy[len(legacy)-1].Index+1:]
	}
	if req.As != nil && rt.cfg.Hooks.ForgetResumesOnResumeAs {
		st.Variables.ResumePayloads = nil
	}
	return rt.runWith(ctx, executionID, def, st, pre)
}

// warnLegacy reports _resumePayloads entries that answered no suspend point (logs written before
// the ingress gate), saying whether each is spent (spec §5 SHOULD).
func (rt *Runtime) warnLegacy(executionID string, f ingress.Facts) {
	for _, e := range ingress.LegacyEntries(f) {
		b, _ := json.Marshal(e)
		rt.cfg.Warn(Warning{ExecutionID: executionID, Code: "legacy-resume-entry", Clauses: []string{"S5.ingress.legacy-warn"},
			Message: "a _resumePayloads entry answered no suspend point (pre-ingress log): " + string(b)})
	}
}

func wakeAtOf(st fold.State) (int64, bool) {
	var on struct {
		WakeAt *int64 `json:"wakeAt"`
	}
	if json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on) != nil || on.WakeAt == nil {
		return 0, false
	}
	return *on.WakeAt, true
}

// routeByCorrelation is the RouteByCorrelation defect: the resume goes to the first execution,
// by id, parked on the same gate under the addressed execution's correlationKey (spec §5 routes by
// executionId only).
func (rt *Runtime) routeByCorrelation(ctx context.Context, executionID string) string {
	type park struct{ On, CorrelationKey string }
	parkOf := func(id string) (park, bool) {
		st, err := rt.State(ctx, id)
		var p park
		if err != nil || st.Status != fold.StatusSuspended || json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &p) != nil {
			return park{}, false
		}
		return p, p.CorrelationKey != ""
	}
	lister, ok := rt.cfg.Store.(spi.ExecutionLister)
	want, keyed := parkOf(executionID)
	if !ok || !keyed {
		return executionID
	}
	page, err := lister.ListExecutionsPage(ctx, "", 1000)
	if err != nil {
		return executionID
	}
	for _, id := range page.ExecutionIDs {
		if p, ok := parkOf(id); ok && p == want {
			return id
		}
	}
	return executionID
}
