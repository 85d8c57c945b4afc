package ingress

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// Evaluate is the resume ingress gate (spec §5) as a pure decision: given the folded state of an
// execution, the facts of its log (FactsFrom over the same envelopes), the caller's request and
// the wired options, it returns either the Plan to append — the exact envelopes, in order — or an
// error and no plan:
//
//   - *ResumeRefusedError{Reason}: an ingress refusal (Reason* constants);
//   - *ResumePayloadValidationError: the shape gate refused the payload, or a resume at an
//     in-doubt park is not a verdict for the parked step;
//   - *InputError: the inputs do not fit together (a caller bug);
//   - ctx.Err(): the context ended before a decision.
//
// Checks run in the order of spec §5: the authenticator (it sees exactly what the caller signed)
// and the execution authorizer, then the ingress rules, then the resumeSchemas shape gate. A
// resumeAs onto an execution that is not parked enforces the kernel-namespace rule only.
// Evaluate reads no clock and does no I/O of its own; the authenticator, authorizer, parsers and
// transform it is given are the only code it calls.
func Evaluate(ctx context.Context, st fold.State, f Facts, req Request, opts Options) (Plan, error) {
	if err := checkInputs(st, f, req); err != nil {
		return Plan{}, err
	}
	if err := ctx.Err(); err != nil {
		return Plan{}, err
	}
	if req.As != nil && st.Status != fold.StatusSuspended {
		return migrateUnparked(st, f, req)
	}
	g := gate{ctx: ctx, st: st, f: f, req: req, opts: opts}
	return g.run()
}

func checkInputs(st fold.State, f Facts, req Request) error {
	if !f.scanned {
		return &InputError{Field: "facts", Detail: "not built by FactsFrom"}
	}
	if f.Sequence != st.Sequence {
		return &InputError{Field: "facts", Detail: fmt.Sprintf("scanned through sequence %d, state folded through %d", f.Sequence, st.Sequence)}
	}
	if f.Status != st.Status {
		return &InputError{Field: "facts", Detail: fmt.Sprintf("status %q, state status %q (not the same log?)", f.Status, st.Status)}
	}
	if len(f.Entries) != len(st.Variables.ResumePayloads) {
		return &InputError{Field: "facts", Detail: fmt.Sprintf("%d resume entries, state has %d (not the same log?)", len(f.Entries), len(st.Variables.ResumePayloads))}
	}
	if req.As == nil && req.EventType == "" {
		return &InputError{Field: "request.eventType", Detail: "required"}
	}
	if !json.Valid(orNull(req.Payload)) {
		return &InputError{Field: "request.payload", Detail: "not JSON"}
	}
	return nil
}

// gate holds one evaluation.
type gate struct {
	ctx      context.Context
	st       fold.State
	f        Facts
	req      Request
	opts     Options
	approval *Approval
}

func (g *gate) run() (Plan, error) {
	req, st := g.req, g.st
	et := req.EventType
	recover := req.As == nil && et == manifest.ExecutionRecovered

	// 1. Identity: the authenticator sees the event exactly as signed; then the authorizer.
	if err := g.authenticate(); err != nil {
		return Plan{}, err
	}

	// 2. Ingress rules.
	if manifest.IsKernelEventType(et) && et != manifest.TimerFired && !recover {
		return Plan{}, refuse(ReasonKernelNamespace, et, "a resume event type may not be a kernel event type")
	}
	if recover {
		return g.recover()
	}
	if terminal(st.Status) {
		return Plan{}, refuse(ReasonTerminal, et, "the execution is "+st.Status)
	}
	if st.Status != fold.StatusSuspended {
		return Plan{}, refuse(ReasonNotSuspended, et, "the execution is "+st.Status+"; retry once it is parked")
	}
	pv := readPark(st)
	if pv.HasGate && pv.Gate == fold.GateInDoubt {
		dec, err := verdictAppend(st, g.f, pv, req, g.approval != nil)
		if err != nil {
			return Plan{}, err
		}
		return g.plan(KindVerdict, nil, false, dec)
	}
	if et == manifest.TimerFired {
		if pv.WakeAt == nil {
			return Plan{}, refuse(ReasonTimerWithoutWakeAt, et, "the park recorded no wakeAt")
		}
		if m, ok := object(req.Payload); !isNull(req.Payload) && (!ok || (m["wakeAt"] != nil && !spi.SameJSON(m["wakeAt"], pv.WakeAt))) {
			return Plan{}, refuse(ReasonTimerMismatch, et, "the timer names another wakeAt than the park recorded (a stale timer)")
		}
	} else if !pv.HasGate || et != pv.Gate {
		r := refuse(ReasonGateMismatch, et, "not the gate the execution is parked on")
		if g.approval != nil && pv.HasGate {
			r.Gate = pv.Gate
		}
		return Plan{}, r
	}
	if pv.Gate == fold.GateDiverged {
		if !isNull(req.Payload) {
			return Plan{}, invalid(et, "the divergence gate is released by a null resume only", nil)
		}
		if req.DiscardLegacyAnswers != nil {
			return Plan{}, refuse(ReasonDiscardNotApplicable, et, "nothing is answered at the divergence gate")
		}
		return g.plan(KindRelease, jsonNull(), false, Append{})
	}
	fwp := failedWhileParked(st)
	if fwp && isNull(req.Payload) {
		return Plan{}, refuse(ReasonNullAfterParkedFailure, et, "a step failed while parked; a null answer would be status-only and answer nothing")
	}
	discard, err := g.legacy(et == manifest.TimerFired)
	if err != nil {
		return Plan{}, err
	}

	// 3. Shape gate.
	answer := orNull(req.Payload)
	if et == manifest.TimerFired {
		answer = mustJSON(map[string]json.RawMessage{"wakeAt": pv.WakeAt})
	} else if p := g.schemas()[et]; p != nil {
		parsed, err := p(answer)
		if err != nil {
			return Plan{}, invalid(et, "resumeSchemas refused the payload", err)
		}
		if !json.Valid(orNull(parsed)) {
			return Plan{}, invalid(et, "resumeSchemas returned no JSON value", nil)
		}
		answer = orNull(parsed)
	}
	if fwp && isNull(answer) {
		return Plan{}, refuse(ReasonNullAfterParkedFailure, et, "the parsed answer is null and a step failed while parked")
	}
	return g.plan(KindAnswer, answer, true, discard)
}

func (g *gate) schemas() map[string]Parser {
	if g.req.As != nil {
		return g.req.As.ResumeSchemas
	}
	return g.opts.ResumeSchemas
}

func (g *gate) authenticate() error {
	req := g.req
	if a := g.opts.Authenticator; a != nil {
		ev := ResumeEvent{ExecutionID: req.ExecutionID, EventType: req.EventType, Payload: req.Payload,
			DiscardLegacyAnswers: req.DiscardLegacyAnswers, ResumeAs: req.As != nil}
		if req.As != nil {
			ev.TargetFlowID = req.As.FlowID
		}
		ap, err := a.Authenticate(g.ctx, ev)
		if err != nil {
			if cerr := g.ctx.Err(); cerr != nil {
				return cerr
			}
			r := refuse(ReasonAuthenticatorRejected, req.EventType, "")
			r.Err = err
			return r
		}
		g.approval = &ap
	}
	if z := g.opts.Authorizer; z != nil {
		ar := AuthorizeRequest{ExecutionID: req.ExecutionID, EventType: req.EventType, ResumeAs: req.As != nil}
		if g.approval != nil {
			ar.Authenticated, ar.By = true, g.approval.By
		}
		if err := z.Authorize(g.ctx, ar); err != nil {
			if cerr := g.ctx.Err(); cerr != nil {
				return cerr
			}
			r := refuse(ReasonUnauthorized, req.EventType, "")
			r.Err = err
			return r
		}
	}
	return g.ctx.Err()
}

func (g *gate) recover() (Plan, error) {
	et, st := g.req.EventType, g.st
	if st.Status != fold.StatusRunning && st.Status != fold.StatusPending {
		return Plan{}, refuse(ReasonRecoveredNotRunning, et, "the execution is "+st.Status+", not crashed")
	}
	if g.req.DiscardLegacyAnswers != nil {
		return Plan{}, refuse(ReasonDiscardNotApplicable, et, "discardLegacyAnswers is never honoured on EXECUTION_RECOVERED")
	}
	if amb := AmbiguousSteps(g.f, st.Variables.Decisions); len(amb) > 0 {
		return Plan{}, refuse(ReasonAmbiguousLegacy, et, "open human step(s) "+strings.Join(amb, ", ")+" cannot be told apart from legacy entries")
	}
	return g.plan(KindRecover, nil, false, Append{})
}

// legacy applies the ambiguous-legacy rule to a gate answer and returns the kernel decision that
// records an honoured discardLegacyAnswers override (zero Append when there is none).
func (g *gate) legacy(timer bool) (Append, error) {
	et, d := g.req.EventType, g.req.DiscardLegacyAnswers
	amb := AmbiguousSteps(g.f, g.st.Variables.Decisions)
	if len(amb) == 0 {
		if d != nil {
			return Append{}, refuse(ReasonDiscardNotApplicable, et, "the log is not ambiguous")
		}
		return Append{}, nil
	}
	why := ""
	switch {
	case d == nil:
		why = "no discardLegacyAnswers"
	case timer:
		why = "discardLegacyAnswers is never honoured on TIMER_FIRED"
	case g.approval == nil:
		why = "discardLegacyAnswers needs a ResumeAuthenticator to verify the event"
	case len(amb) > 1:
		why = "more than one open human step is ambiguous"
	case d.StepID != amb[0]:
		why = fmt.Sprintf("discardLegacyAnswers names step %q", d.StepID)
	case d.Count < 1 || d.Count > len(g.st.Variables.ResumePayloads):
		why = fmt.Sprintf("discardLegacyAnswers count %d is outside 1..%d", d.Count, len(g.st.Variables.ResumePayloads))
	default:
		payload := mustJSON(map[string]any{"id": DiscardDecisionID(d.StepID), "choice": map[string]int{"count": d.Count}})
		return Append{EventType: manifest.DecisionRecorded, Payload: payload, Metadata: kernelMeta()}, nil
	}
	return Append{}, refuse(ReasonAmbiguousLegacy, et, "open human step(s) "+strings.Join(amb, ", ")+" cannot be told apart from legacy entries: "+why)
}

// plan assembles the envelopes of an accepted request on the main path, in the fixed order
// APPROVAL_GRANTED, EXECUTION_MIGRATED, kernel DECISION_RECORDED, delivered event,
// EXECUTION_RESUMED (docs/interpretations.md I-KERNEL-51).
func (g *gate) plan(kind Kind, answer json.RawMessage, answers bool, decision Append) (Plan, error) {
	req := g.req
	p := Plan{Kind: kind, Answers: answers, Answer: answer, Approval: g.approval}
	if g.approval != nil {
		ap := map[string]string{"eventType": req.EventType}
		if g.approval.By != "" {
			ap["by"] = g.approval.By
		}
		p.Appends = append(p.Appends, Append{EventType: manifest.ApprovalGranted, Payload: mustJSON(ap), Metadata: kernelMeta()})
	}
	if req.As != nil {
		mig, migrated, err := migratedAppend(g.st, g.f, req)
		if err != nil {
			return Plan{}, err
		}
		p.Appends = append(p.Appends, mig)
		p.MigratedInput = migrated
	}
	switch kind {
	case KindRecover:
		rec := map[string]string{}
		if g.approval != nil && g.approval.By != "" {
			rec["by"] = g.approval.By
		}
		p.Appends = append(p.Appends, Append{EventType: manifest.ExecutionRecovered, Payload: mustJSON(rec), Metadata: kernelMeta()})
		return p, nil
	case KindVerdict:
		p.Appends = append(p.Appends, decision, Append{EventType: manifest.ExecutionResumed, Payload: jsonNull()})
		return p, nil
	}
	if decision.EventType != "" {
		p.Appends = append(p.Appends, decision)
	}
	p.Appends = append(p.Appends,
		Append{EventType: req.EventType, Payload: answer},
		Append{EventType: manifest.ExecutionResumed, Payload: answer})
	return p, nil
}

// migrateUnparked is resumeAs onto a crashed (running or pending) or terminal execution: the
// kernel-namespace rule only (spec §5). It records EXECUTION_MIGRATED, the optional event, and —
// onto a terminal execution — a null EXECUTION_RESUMED that re-opens it (status only).
func migrateUnparked(st fold.State, f Facts, req Request) (Plan, error) {
	et := req.EventType
	if et != "" && manifest.IsKernelEventType(et) {
		if et == manifest.TimerFired {
			return Plan{}, refuse(ReasonTimerWithoutWakeAt, et, "nothing is parked, so no wakeAt is recorded")
		}
		return Plan{}, refuse(ReasonKernelNamespace, et, "a resumeAs event type may not be a kernel event type")
	}
	if req.DiscardLegacyAnswers != nil {
		return Plan{}, refuse(ReasonDiscardNotApplicable, et, "nothing is parked, so nothing is answered")
	}
	mig, migrated, err := migratedAppend(st, f, req)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Kind: KindMigrate, Appends: []Append{mig}, MigratedInput: migrated}
	if et != "" {
		p.Appends = append(p.Appends, Append{EventType: et, Payload: orNull(req.Payload)})
	}
	if terminal(st.Status) {
		p.Kind = KindReopen
		p.Appends = append(p.Appends, Append{EventType: manifest.ExecutionResumed, Payload: jsonNull()})
	}
	return p, nil
}

// migratedAppend builds EXECUTION_MIGRATED {fromFlowHash?, toFlowHash?, toCodeHash?,
// migratedInput?}, running the transform over the current _input.
func migratedAppend(st fold.State, f Facts, req Request) (Append, json.RawMessage, error) {
	as := req.As
	payload := map[string]json.RawMessage{}
	if f.FlowHash != "" {
		payload["fromFlowHash"] = mustJSON(f.FlowHash)
	}
	if as.FlowHash != "" {
		payload["toFlowHash"] = mustJSON(as.FlowHash)
	}
	if as.CodeHash != "" {
		payload["toCodeHash"] = mustJSON(as.CodeHash)
	}
	var migrated json.RawMessage
	if as.Transform != nil {
		out, err := as.Transform(orNull(st.Variables.Values[fold.VarInput]))
		if err != nil {
			r := refuse(ReasonTransformFailed, req.EventType, "the state transform failed")
			r.Err = err
			return Append{}, nil, r
		}
		if !json.Valid(orNull(out)) {
			return Append{}, nil, refuse(ReasonTransformFailed, req.EventType, "the state transform returned no JSON value")
		}
		migrated = orNull(out)
		payload["migratedInput"] = migrated
	}
	return Append{EventType: manifest.ExecutionMigrated, Payload: mustJSON(payload), Metadata: kernelMeta()}, migrated, nil
}
