package ingressprops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/spi"
	"pgregory.net/rapid"
)

// Gate is the decision function under test; ingress.Evaluate is the reference.
type Gate func(ctx context.Context, st fold.State, f ingress.Facts, req ingress.Request, opts ingress.Options) (ingress.Plan, error)

// Reference returns the reference gate.
func Reference() Gate { return ingress.Evaluate }

// Violation is one broken property, printed in the project's failure grammar.
type Violation struct {
	Check   string
	Clauses []string
	Case    Case
	Got     string
	Want    string
	Diff    string
}

func (v *Violation) Error() string {
	s := fmt.Sprintf("%s [%s]: Evaluate(%#v) = %s, want %s", v.Check, strings.Join(v.Clauses, " "), v.Case, v.Got, v.Want)
	if v.Diff != "" {
		s += "\n(-want +got):\n" + v.Diff
	}
	return s
}

// Check ids of the properties (see Checks).
const (
	CheckVerdict    = "ingressprops/verdict-matches-model"
	CheckNoPlan     = "ingressprops/refusal-no-plan"
	CheckPlan       = "ingressprops/plan-matches-model"
	CheckGateNamed  = "ingressprops/gate-named-authenticated"
	CheckStateMoves = "ingressprops/append-moves-state"
	CheckBuilder    = "ingressprops/builder-sane"
	CheckInert      = "ingressprops/delivered-event-inert"
)

var clauses = map[string][]string{
	CheckVerdict: {"S5.ingress.always", "S5.ingress.kernel-namespace", "S5.ingress.timer-exception", "S5.ingress.suspended-only",
		"S5.ingress.gate-match", "S5.ingress.timer-needs-wakeat", "S5.ingress.recovered-running-only", "S5.ingress.not-suspended",
		"S5.ingress.indoubt-other-refused", "S4.ingress.null-after-parked-failure", "S5.ingress.ambiguous-legacy",
		"S5.order.identity-ingress-shape", "S5.resumeas.crashed-namespace-only", "S5.resumeas.parked-all-rules",
		"S5.schema.parse-before-append", "S5.schema.resumeas-target", "S5.resumeas.transform-fail-refuses",
		"I-KERNEL-52", "I-KERNEL-53", "I-KERNEL-54", "I-KERNEL-55", "I-KERNEL-56", "I-KERNEL-58", "I-KERNEL-59"},
	CheckNoPlan:     {"S5.ingress.refusal-appends-nothing", "S5.auth.rejected-not-logged", "S5.schema.refuse-still-parked"},
	CheckPlan:       {"S5.ingress.redrive-no-resumed", "S5.ingress.resumeas-terminal-null", "S5.ingress.indoubt-verdict-recorded", "S5.auth.approval-recorded", "S5.schema.record-parsed", "S5.schema.absent-unchanged", "I-KERNEL-50"},
	CheckGateNamed:  {"S5.ingress.gate-match", "I-KERNEL-51"},
	CheckStateMoves: {"S5.ingress.one-entry-per-suspend", "S4.fold.failed-while-parked-cleared", "S4.v1_20.null-resume-no-passthrough", "S5.resumeas.transform-recorded", "S5.decide.verdict-beside-indoubt"},
	CheckBuilder:    {"S4.fold.status-execution-only"},
	CheckInert:      {"S5.ingress.refusal-fold-identical", "S4.fold.unknown-inert"},
}

func violation(check string, c Case, got, want string) *Violation {
	return &Violation{Check: check, Clauses: clauses[check], Case: c, Got: got, Want: want}
}

// Request turns the case's attempt into the gate's request and options.
func (c Case) Request() (ingress.Request, ingress.Options) {
	a := c.Attempt
	req := ingress.Request{ExecutionID: "x", EventType: a.EventType, Payload: json.RawMessage(a.Payload)}
	switch a.Discard {
	case "ok":
		req.DiscardLegacyAnswers = &ingress.DiscardLegacyAnswers{StepID: HumanStep, Count: 1}
	case "wrong-step":
		req.DiscardLegacyAnswers = &ingress.DiscardLegacyAnswers{StepID: "not-" + HumanStep, Count: 1}
	case "zero":
		req.DiscardLegacyAnswers = &ingress.DiscardLegacyAnswers{StepID: HumanStep, Count: 0}
	case "over":
		req.DiscardLegacyAnswers = &ingress.DiscardLegacyAnswers{StepID: HumanStep, Count: entryCount(c.Scenario) + 1}
	}
	var opts ingress.Options
	switch a.Auth {
	case "accept":
		opts.Authenticator = ingress.AuthenticatorFunc(func(context.Context, ingress.ResumeEvent) (ingress.Approval, error) {
			return ingress.Approval{By: "operator"}, nil
		})
	case "reject":
		opts.Authenticator = ingress.AuthenticatorFunc(func(context.Context, ingress.ResumeEvent) (ingress.Approval, error) {
			return ingress.Approval{}, errors.New("signature does not verify")
		})
	}
	var schemas map[string]ingress.Parser
	switch a.Schema {
	case "identity":
		schemas = map[string]ingress.Parser{a.EventType: func(p json.RawMessage) (json.RawMessage, error) { return p, nil }}
	case "default":
		schemas = map[string]ingress.Parser{a.EventType: func(json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{"defaulted":true}`), nil }}
	case "reject":
		schemas = map[string]ingress.Parser{a.EventType: func(json.RawMessage) (json.RawMessage, error) { return nil, errors.New("shape refused") }}
	case "to-null":
		schemas = map[string]ingress.Parser{a.EventType: func(json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`null`), nil }}
	}
	if !a.ResumeAs {
		opts.ResumeSchemas = schemas
		return req, opts
	}
	req.As = &ingress.ResumeAs{FlowID: "target", FlowHash: "sha256:bb", ResumeSchemas: schemas}
	if !a.NoOptsSchema { // the source flow's map: a resumeAs must not consult it
		opts.ResumeSchemas = map[string]ingress.Parser{a.EventType: func(json.RawMessage) (json.RawMessage, error) { return nil, errors.New("source flow schema") }}
	}
	switch a.Transform {
	case "ok":
		req.As.Transform = func(json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{"migrated":true}`), nil }
	case "fail":
		req.As.Transform = func(json.RawMessage) (json.RawMessage, error) { return nil, errors.New("transform failed") }
	}
	return req, opts
}

// outcome names a gate result the way the model does.
func outcome(err error) (reason string, gate string) {
	var r *ingress.ResumeRefusedError
	var v *ingress.ResumePayloadValidationError
	switch {
	case err == nil:
		return "", ""
	case errors.As(err, &r):
		return r.Reason, r.Gate
	case errors.As(err, &v):
		return "validation", ""
	}
	return "error: " + err.Error(), ""
}

func show(reason string) string {
	if reason == "" {
		return "accepted"
	}
	return reason
}

// CheckCase runs one case against g and returns every property it breaks, joined.
func CheckCase(g Gate, c Case) error {
	events := BuildLog(c.Scenario)
	st, err := fold.Fold(fold.Current(), nil, events)
	if err != nil {
		return violation(CheckBuilder, c, "fold error "+err.Error(), "a foldable log")
	}
	if st.Status != c.Scenario.Status {
		return violation(CheckBuilder, c, "status "+st.Status, "status "+c.Scenario.Status)
	}
	facts, err := ingress.FactsFrom(events)
	if err != nil {
		return violation(CheckBuilder, c, "FactsFrom error "+err.Error(), "facts")
	}
	req, opts := c.Request()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	plan, gerr := g(ctx, st, facts, req, opts)
	want := Predict(c)
	reason, gate := outcome(gerr)
	var errs []error
	if reason != want.Reason {
		errs = append(errs, violation(CheckVerdict, c, show(reason)+fmt.Sprintf(" (%v)", gerr), show(want.Reason)))
	}
	if gerr != nil && len(plan.Appends) != 0 {
		errs = append(errs, violation(CheckNoPlan, c, fmt.Sprintf("refusal with plan %v", plan.Types()), "no plan"))
	}
	if reason == "gate-mismatch" && want.Reason == "gate-mismatch" {
		if named := gate != "" || strings.Contains(gerr.Error(), fmt.Sprintf("%q", c.Scenario.Gate)); named != want.NamesGate {
			errs = append(errs, violation(CheckGateNamed, c, fmt.Sprintf("gate named = %v", named), fmt.Sprintf("gate named = %v", want.NamesGate)))
		}
	}
	if gerr == nil && want.Reason == "" {
		if diff := cmp.Diff(want.Types, plan.Types()); diff != "" {
			v := violation(CheckPlan, c, fmt.Sprint(plan.Types()), fmt.Sprint(want.Types))
			v.Diff = diff
			errs = append(errs, v)
		} else if err := checkAppended(c, want, st, events, plan); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkAppended appends the plan, folds again and checks the state moved as spec §5 says.
func checkAppended(c Case, want Prediction, before fold.State, events []spi.Envelope, plan ingress.Plan) error {
	envs := plan.Envelopes("wf", "x", before.Sequence, 9000, func(i int) string { return fmt.Sprintf("plan-%d", i) })
	if want.Answer != "" {
		n := len(envs)
		for _, e := range envs[n-2:] { // the delivered event and EXECUTION_RESUMED carry the answer
			if !spi.SameJSON(e.Payload, json.RawMessage(want.Answer)) {
				return violation(CheckPlan, c, fmt.Sprintf("%s payload %s", e.EventType, e.Payload), "recorded answer "+want.Answer)
			}
		}
	}
	if err := checkInert(c, before, plan); err != nil {
		return err
	}
	after, err := fold.Fold(fold.Current(), &before, envs)
	if err != nil {
		return violation(CheckStateMoves, c, "refold error "+err.Error(), "the plan folds")
	}
	all := append(slices.Clone(events), envs...)
	if f, err := ingress.FactsFrom(all); err != nil || f.Status != after.Status || len(f.Entries) != len(after.Variables.ResumePayloads) {
		return violation(CheckStateMoves, c, fmt.Sprintf("facts after plan disagree with the fold (%v)", err), "facts equal to the fold")
	}
	nb, na := len(before.Variables.ResumePayloads), len(after.Variables.ResumePayloads)
	grew := na - nb
	wantGrow := 0
	if want.Answers {
		wantGrow = 1
	}
	if grew != wantGrow {
		return violation(CheckStateMoves, c, fmt.Sprintf("%d new _resumePayloads entries", grew), fmt.Sprintf("%d", wantGrow))
	}
	if want.Answers && !spi.SameJSON(after.Variables.ResumePayloads[na-1], json.RawMessage(want.Answer)) {
		return violation(CheckStateMoves, c, "entry "+string(after.Variables.ResumePayloads[na-1]), want.Answer)
	}
	wantStatus := fold.StatusRunning
	switch want.Kind {
	case "recover", "migrate":
		wantStatus = before.Status
	}
	if after.Status != wantStatus {
		return violation(CheckStateMoves, c, "status "+after.Status, "status "+wantStatus)
	}
	if wantStatus == fold.StatusRunning {
		for _, k := range []string{fold.VarSuspendedOn, fold.VarFailedWhileParked} {
			if _, ok := after.Variables.Values[k]; ok {
				return violation(CheckStateMoves, c, k+" still set", k+" removed")
			}
		}
	}
	if c.Attempt.ResumeAs && c.Attempt.Transform == "ok" && string(after.Variables.Values[fold.VarInput]) != `{"migrated":true}` {
		return violation(CheckStateMoves, c, "_input "+string(after.Variables.Values[fold.VarInput]), `_input {"migrated":true}`)
	}
	if want.Kind == "verdict" {
		id := fmt.Sprintf("__loom_indoubt:%s#%d", InDoubtStep, InDoubtAttempt)
		if _, ok := after.Variables.Decisions[id]; !ok {
			return violation(CheckStateMoves, c, "no decision "+id, "the verdict decision recorded")
		}
	}
	return nil
}

// Property is the rapid property over g.
func Property(g Gate) func(*rapid.T) {
	return func(t *rapid.T) {
		c := Cases().Draw(t, "case")
		if err := CheckCase(g, c); err != nil {
			t.Fatalf("%v", err)
		}
	}
}

// Sweep checks the first n cases of the deterministic example stream (seeds 0..n-1) and returns
// the first violation with its seed; it needs no *testing.T, so a test can prove a broken gate is
// caught.
func Sweep(g Gate, n int) (seed int, err error) {
	gen := Cases()
	for i := 0; i < n; i++ {
		if err := CheckCase(g, gen.Example(i)); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// checkInert: the caller's delivered event, folded alone, changes nothing but sequence and
// updatedAt — so refusing it is fold-identical for a legitimate log (spec §5, G2): only the
// kernel's own envelopes of a plan move state.
func checkInert(c Case, before fold.State, plan ingress.Plan) error {
	for _, a := range plan.Appends {
		if a.EventType != c.Attempt.EventType || a.EventType == "" {
			continue
		}
		env := plan.Envelopes("wf", "x", before.Sequence, 9000, func(int) string { return "inert" })[:1]
		env[0].EventType, env[0].Payload, env[0].Metadata = a.EventType, a.Payload, a.Metadata
		got, err := fold.Fold(fold.Current(), &before, env)
		if err != nil {
			return violation(CheckInert, c, "fold error "+err.Error(), "the delivered event folds")
		}
		got.Sequence, got.UpdatedAt = before.Sequence, before.UpdatedAt
		gb, _ := fold.CanonicalState(got)
		bb, _ := fold.CanonicalState(before)
		if string(gb) != string(bb) {
			v := violation(CheckInert, c, "the delivered "+a.EventType+" moved the state", "a no-op")
			v.Diff = cmp.Diff(string(bb), string(gb))
			return v
		}
	}
	return nil
}
