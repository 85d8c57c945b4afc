package ingressprops

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"maps"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
)

func reasonOf(err error) string {
	r, _ := outcome(err)
	return r
}

func resumeAppends(et string, answer json.RawMessage) []ingress.Append {
	return []ingress.Append{{EventType: et, Payload: answer}, {EventType: "EXECUTION_RESUMED", Payload: answer}}
}

// mutants are deliberately broken gates, one defect each.
var mutants = map[string]Gate{
	// Lets TIMER_FIRED wake a park that recorded no wakeAt.
	"timer-without-wakeat-accepted": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if reasonOf(err) == "timer-without-wakeat" && st.Status == fold.StatusSuspended {
			return ingress.Plan{Kind: ingress.KindAnswer, Answers: true, Appends: resumeAppends(req.EventType, json.RawMessage(`{}`))}, nil
		}
		return p, err
	},
	// Accepts a null answer after a parked failure (evaluates as if the flag were not set).
	"null-after-parked-failure-accepted": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if reasonOf(err) == "null-answer-after-parked-failure" {
			st.Variables.Values = maps.Clone(st.Variables.Values)
			delete(st.Variables.Values, fold.VarFailedWhileParked)
			return ingress.Evaluate(ctx, st, f, req, o)
		}
		return p, err
	},
	// Runs the shape gate before identity and the ingress rules.
	"shape-before-identity": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		schemas := o.ResumeSchemas
		if req.As != nil {
			schemas = req.As.ResumeSchemas
		}
		if parse := schemas[req.EventType]; parse != nil {
			if _, err := parse(req.Payload); err != nil {
				return ingress.Plan{}, &ingress.ResumePayloadValidationError{EventType: req.EventType, Err: err}
			}
		}
		return ingress.Evaluate(ctx, st, f, req, o)
	},
	// Forgets the kernel-namespace rule: a forged STEP_COMPLETED (or any kernel type) answers the gate.
	"kernel-namespace-off": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if reasonOf(err) == "kernel-namespace" && st.Status == fold.StatusSuspended {
			return ingress.Plan{Kind: ingress.KindAnswer, Answers: true, Appends: resumeAppends(req.EventType, req.Payload)}, nil
		}
		return p, err
	},
	// Accepts EXECUTION_RECOVERED on a parked or terminal execution.
	"recover-anywhere": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if reasonOf(err) == "recovered-not-running" {
			return ingress.Plan{Kind: ingress.KindRecover, Appends: []ingress.Append{{EventType: "EXECUTION_RECOVERED", Payload: json.RawMessage(`{}`)}}}, nil
		}
		return p, err
	},
	// Records an EXECUTION_RESUMED on a recover (an answer for whatever gate comes next).
	"recover-records-resumed": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if err == nil && p.Kind == ingress.KindRecover {
			p.Appends = append(p.Appends, ingress.Append{EventType: "EXECUTION_RESUMED", Payload: json.RawMessage(`{}`)})
		}
		return p, err
	},
	// Names the parked gate to any caller.
	"gate-named-to-anyone": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		var r *ingress.ResumeRefusedError
		if errors.As(err, &r) && r.Reason == "gate-mismatch" {
			var on struct{ On string }
			_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
			r.Gate = on.On
		}
		return p, err
	},
	// Records the raw payload instead of the parsed one.
	"raw-not-parsed": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if err == nil && p.Kind == ingress.KindAnswer && req.EventType != "TIMER_FIRED" {
			n := len(p.Appends)
			p.Appends[n-1].Payload, p.Appends[n-2].Payload = req.Payload, req.Payload
		}
		return p, err
	},
	// Accepts any resume at an in-doubt park as a plain answer.
	"indoubt-any-answer": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if reasonOf(err) == "validation" && st.Status == fold.StatusSuspended && req.EventType != "TIMER_FIRED" {
			return ingress.Plan{Kind: ingress.KindAnswer, Answers: true, Appends: resumeAppends(req.EventType, req.Payload)}, nil
		}
		return p, err
	},
	// Never refuses an ambiguous legacy log.
	"ambiguity-ignored": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if reasonOf(err) == "ambiguous-legacy-answers" {
			f.HumanSteps = nil
			req.DiscardLegacyAnswers = nil
			return ingress.Evaluate(ctx, st, f, req, o)
		}
		return p, err
	},
	// Refuses, but still hands back a plan.
	"plan-on-refusal": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if err != nil {
			p.Appends = resumeAppends(req.EventType, req.Payload)
		}
		return p, err
	},
	// resumeAs onto a parked execution validated against the source flow's map.
	"resumeas-source-schema": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		if req.As != nil && st.Status == fold.StatusSuspended {
			as := *req.As
			as.ResumeSchemas = o.ResumeSchemas
			req.As = &as
		}
		return ingress.Evaluate(ctx, st, f, req, o)
	},
}

// moreMutants are the gates that break one ingress rule each, beyond the first set.
var moreMutants = map[string]Gate{
	// Takes an answer while the execution runs.
	"answer-while-running": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if reasonOf(err) == ingress.ReasonNotSuspended {
			return ingress.Plan{Kind: ingress.KindAnswer, Answers: true, Appends: resumeAppends(req.EventType, req.Payload)}, nil
		}
		return p, err
	},
	// Takes any event type as the answer of the parked gate.
	"gate-ignored": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if reasonOf(err) == ingress.ReasonGateMismatch {
			return ingress.Plan{Kind: ingress.KindAnswer, Answers: true, Appends: resumeAppends(req.EventType, req.Payload)}, nil
		}
		return p, err
	},
	// Records an answer's EXECUTION_RESUMED twice.
	"answers-twice": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if err == nil && p.Kind == ingress.KindAnswer && len(p.Appends) > 0 {
			p.Appends = append(p.Appends, p.Appends[len(p.Appends)-1])
		}
		return p, err
	},
	// resumeAs onto a terminal execution re-opens it with the caller's payload, not null.
	"reopen-with-payload": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if err == nil && p.Kind == ingress.KindReopen && len(p.Appends) > 0 {
			p.Appends[len(p.Appends)-1].Payload = json.RawMessage(`{"reopened":true}`)
		}
		return p, err
	},
	// Records the resume of an in-doubt park but not the verdict.
	"verdict-not-recorded": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if err == nil && p.Kind == ingress.KindVerdict {
			var keep []ingress.Append
			for _, a := range p.Appends {
				if a.EventType == "EXECUTION_RESUMED" {
					keep = append(keep, a)
				}
			}
			p.Appends = keep
		}
		return p, err
	},
	// resumeAs onto a crashed or terminal execution also enforces the gate rule of the last park.
	"resumeas-unparked-gate-checked": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if err == nil && (p.Kind == ingress.KindMigrate || p.Kind == ingress.KindReopen) && req.EventType != "" {
			return ingress.Plan{}, &ingress.ResumeRefusedError{Reason: ingress.ReasonGateMismatch, EventType: req.EventType}
		}
		return p, err
	},
	// Drops the authenticator's APPROVAL_GRANTED from the plan.
	"approval-not-recorded": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if err == nil && p.Approval != nil {
			var keep []ingress.Append
			for _, a := range p.Appends {
				if a.EventType != "APPROVAL_GRANTED" {
					keep = append(keep, a)
				}
			}
			p.Appends = keep
		}
		return p, err
	},
	// Logs the answer of a resume the authenticator rejected.
	"rejected-logged": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if reasonOf(err) == ingress.ReasonAuthenticatorRejected {
			return ingress.Plan{Kind: ingress.KindAnswer, Answers: true, Appends: resumeAppends(req.EventType, req.Payload)}, nil
		}
		return p, err
	},
	// Never runs the shape gate.
	"no-shape-gate": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		o.ResumeSchemas = nil
		if req.As != nil {
			as := *req.As
			as.ResumeSchemas = nil
			req.As = &as
		}
		return ingress.Evaluate(ctx, st, f, req, o)
	},
	// Runs the transform but leaves its result out of EXECUTION_MIGRATED.
	"transform-not-recorded": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if err == nil && p.MigratedInput != nil {
			for i, a := range p.Appends {
				var m map[string]json.RawMessage
				if a.EventType == "EXECUTION_MIGRATED" && json.Unmarshal(a.Payload, &m) == nil {
					delete(m, "migratedInput")
					p.Appends[i].Payload, _ = json.Marshal(m)
				}
			}
		}
		return p, err
	},
	// Records the caller's delivered event with a flowEmit stamp, as if the flow had emitted it, so
	// the delivered event counts in _flowEmits: it contributes to the fold, and refusing it is no
	// longer fold-identical.
	"delivered-event-stamped": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		for i, a := range p.Appends {
			if err == nil && a.EventType == req.EventType {
				p.Appends[i].Metadata = json.RawMessage(`{"flowEmit":"0123456789abcdef"}`)
			}
		}
		return p, err
	},
	// With no resumeSchemas entry for the gate, records the answer as its JSON text (a string)
	// instead of the value the caller sent.
	"absent-schema-stringified": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		schemas := o.ResumeSchemas
		if req.As != nil {
			schemas = req.As.ResumeSchemas
		}
		if err != nil || !p.Answers || schemas[req.EventType] != nil {
			return p, err
		}
		text, _ := json.Marshal(string(req.Payload))
		for i, a := range p.Appends {
			if a.EventType == req.EventType || a.EventType == "EXECUTION_RESUMED" {
				p.Appends[i].Payload = text
			}
		}
		return p, err
	},
	// A failing transform is skipped and the migration goes ahead without it.
	"transform-failure-ignored": func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, o ingress.Options) (ingress.Plan, error) {
		p, err := ingress.Evaluate(ctx, st, f, req, o)
		if reasonOf(err) == ingress.ReasonTransformFailed && req.As != nil {
			as := *req.As
			as.Transform = nil
			req.As = &as
			return ingress.Evaluate(ctx, st, f, req, o)
		}
		return p, err
	},
}

// TestKitRejectsMutantGates: every deliberately broken gate is caught by the property within the
// deterministic sweep, and the reference gate is not. Reference: spec §5; DESIGN §6 (kits prove
// themselves).
func TestKitRejectsMutantGates(t *testing.T) {
	const n = 3000
	if seed, err := Sweep(Reference(), n); err != nil {
		t.Fatalf("ingressprops/mutants: the reference gate fails at seed %d: %v", seed, err)
	}
	all := maps.Clone(mutants)
	maps.Copy(all, moreMutants)
	var built []string
	for name := range all {
		built = append(built, "gate/ingress/"+name)
	}
	for _, m := range proof.Registered(t, Mutants(), "kits/ingressprops:TestKitRejectsMutantGates", built) {
		seed, err := Sweep(all[strings.TrimPrefix(m.ID, "gate/ingress/")], n)
		if err == nil {
			t.Errorf("ingressprops/sweep %v: Sweep(%s, %d) = no violation, want the mutant rejected", m.Clauses, m.ID, n)
			continue
		}
		for _, c := range m.CaughtBy {
			proof.Rejected(t, m.ID, c, proof.Failure(c, nil, "Sweep("+m.ID+")", err))
		}
		t.Logf("%s: caught at seed %d: %.200s", m.ID, seed, err.Error())
	}
}
