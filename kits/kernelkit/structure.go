package kernelkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// structureChecks: structural refusals — ids reserved for the kernel (spec §5, I-KERNEL-21,
// I-KERNEL-22) on every syscall that takes one, and a park inside a parallel branch (I-KERNEL-6).
// Refusing a reserved gate, a reserved human step or a park in a branch is our choice; each check
// is two assertions (choiceCheck): required, the kernel either refused or parked durably — the
// legal options — citing the spec clause any other answer breaks; recommended, it refused with
// -32026 and appended nothing, citing the choice.
func structureChecks() []kitCheck {
	out := []kitCheck{
		check("kernel/reserved/decide", spec.MustNot, "syscall.decide with an id beginning __loom_ is refused -32026 (kind syscall) with nothing appended",
			reserved("decide", carrier.CodeSyscallError, `{"id":"__loom_verdict","choice":1}`), "S5.decide.loom-reserved", "I-WIRE-25"),
		check("kernel/reserved/emit-decision", spec.MustNot, "syscall.emit of a DECISION_RECORDED whose id begins __loom_ is refused -32023 (kind emit-refused) with nothing appended",
			reserved("emit", carrier.CodeRefused, `{"eventType":"DECISION_RECORDED","payload":{"id":"__loom_indoubt:s#1","choice":{"verdict":"applied"}}}`), "S5.decide.loom-reserved", "I-WIRE-25"),
		choiceCheck("kernel/reserved/suspend-gate", spec.MustNot, "syscall.suspend on a gate beginning __loom_ or a kernel event type other than TIMER_FIRED (an empty gate is a missing member: -32602, kernel/errors/args-shape) is refused or parks durably (required: a suspend is never answered without parking), and is refused -32026 with nothing appended (recommended: ours)",
			kkReservedGates, []string{"S5.suspend.config"}, []string{"I-KERNEL-21"}),
		choiceCheck("kernel/reserved/human-step", spec.MustNot, "syscall.execute of a human step (kind human) whose id begins __loom_ or is a kernel event type — it names the step's gate — is refused or parks durably with condition.stepId (required: a human step is never run as a plain step, which answers no suspend point), and is refused -32026 with nothing appended (recommended: ours)",
			kkReservedHuman, []string{"S5.ingress.human-step-entry"}, []string{"I-KERNEL-22"}),
	}
	for _, p := range branchParks() {
		out = append(out, choiceCheck("kernel/structure/park-in-branch/"+p.name, spec.MustNot,
			"syscall."+p.name+" inside a branch of a two-branch parallel is refused with nothing appended or "+p.parks+" (required: "+p.never+"), and is refused -32026 with nothing appended (recommended: ours, a park in a branch is not supported)",
			parkInBranch(p), []string{p.clause}, []string{"I-KERNEL-6"}))
	}
	return out
}

// branchPark is a parking syscall and what a legal park of it is.
type branchPark struct {
	name   string
	clause string // the clause an answer without parking breaks
	parks  string // the legal park, in words
	never  string // what the clause rules out, in words
	record string // the envelope a legal park appends
	timed  bool   // a legal park records a wakeAt
}

// branchParks are the syscalls that park (or, continueAsNew, end the run), each with the legal
// options a kernel has inside a parallel branch: refuse, or park as anywhere else.
func branchParks() []branchPark {
	suspended := manifest.ExecutionSuspended
	return []branchPark{
		{"suspend", "S5.suspend.config", "parks durably (EXECUTION_SUSPENDED appended)", "a suspend durably parks, never answers at once", suspended, false},
		{"sleep", "S5.timer.durable-wakeat", "parks durably with a recorded wakeAt", "a timed suspend records a durable wakeAt", suspended, true},
		{"sleepUntil", "S5.timer.durable-wakeat", "parks durably with a recorded wakeAt", "a timed suspend records a durable wakeAt", suspended, true},
		{"receive", "I-KERNEL-80", "parks durably on its wait", "a wait is answered only by a delivered message", suspended, false},
		{"select", "I-KERNEL-80", "parks durably on its waits", "a wait is answered only by a delivered message", suspended, false},
		{"continueAsNew", "I-KERNEL-81", "ends the run as continued (EXECUTION_CONTINUED appended)", "continueAsNew never returns to the flow as if it had continued", manifest.ExecutionContinued, false},
	}
}

// reserved holds each of the syscall's args to a refusal with code and nothing appended.
func reserved(name string, code int, args ...string) func(context.Context, *Case) error {
	return func(ctx context.Context, c *Case) error {
		d, err := startExec(ctx, c, "reserved-"+name)
		if err != nil {
			return err
		}
		for i, a := range args {
			c.Progress(i, len(args))
			err := appendsNothing(ctx, c, d.ExecutionID, "syscall."+name+" "+a, func() error {
				_, _, err := d.Syscall(ctx, name, json.RawMessage(a))
				return wantError(c, "syscall."+name, a, err, code, "")
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// answer is what a syscall a kernel may refuse or park on did: its answer and what it appended.
type answer struct {
	value    json.RawMessage
	parked   bool
	err      error
	appended []spi.Envelope
}

// refused reports whether the kernel refused the call with nothing appended.
func (a answer) refused() bool {
	_, ok := asCall(a.err)
	return ok && len(a.appended) == 0
}

// refusedWith reports whether the kernel refused the call with code and nothing appended.
func (a answer) refusedWith(code int) bool {
	ce, ok := asCall(a.err)
	return ok && ce.RPC.Code == code && len(a.appended) == 0
}

// parkedOn returns the appended envelope of type eventType when the call answered parked, and
// whether there is one.
func (a answer) parkedOn(eventType string) (spi.Envelope, bool) {
	if a.err != nil || !a.parked {
		return spi.Envelope{}, false
	}
	for _, e := range a.appended {
		if e.EventType == eventType {
			return e, true
		}
	}
	return spi.Envelope{}, false
}

func (a answer) String() string {
	var types []string
	for _, e := range a.appended {
		types = append(types, e.EventType)
	}
	appended := "nothing appended"
	if len(types) > 0 {
		appended = "appended " + strings.Join(types, " ")
	}
	if a.err != nil {
		return a.err.Error() + ", " + appended
	}
	return fmt.Sprintf("value %s parked %v, %s", a.value, a.parked, appended)
}

// call makes one syscall at path and reads what it appended to the execution's log.
func call(ctx context.Context, c *Case, d *carrier.Driver, path []int, name, args string) (answer, error) {
	before, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return answer{}, err
	}
	v, parked, callErr := d.SyscallAt(ctx, path, name, json.RawMessage(args))
	after, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return answer{}, err
	}
	return answer{value: v, parked: parked, err: callErr, appended: after[min(len(before), len(after)):]}, nil
}

// wakeAtOf reports whether a park's payload records a numeric wakeAt.
func wakeAtOf(e spi.Envelope) bool {
	var p struct {
		WakeAt json.Number `json:"wakeAt"`
	}
	return json.Unmarshal(e.Payload, &p) == nil && p.WakeAt != ""
}

func kkReservedGates(ctx context.Context, c *Case) error {
	gates := []string{"__loom_gate", "__loom_indoubt__"}
	for _, t := range manifest.EventTypes() {
		if t.Name != manifest.TimerFired {
			gates = append(gates, t.Name)
		}
	}
	var d *carrier.Driver
	for i, g := range gates {
		c.Progress(i, len(gates))
		if d == nil || d.Ended != "" {
			var err error
			if d, err = startExec(ctx, c, "reserved-suspend"); err != nil {
				return err
			}
		}
		args := fmt.Sprintf(`{"on":%q}`, g)
		a, err := call(ctx, c, d, nil, "suspend", args)
		if err != nil {
			return err
		}
		if err := oneOfLegal(c, "syscall.suspend", args, a, manifest.ExecutionSuspended, false, "", "S5.suspend.config", "I-KERNEL-21"); err != nil {
			return err
		}
	}
	return nil
}

func kkReservedHuman(ctx context.Context, c *Case) error {
	for i, id := range []string{"__loom_review", manifest.StepCompleted} {
		c.Progress(i, 2)
		d, err := startExec(ctx, c, "reserved-human")
		if err != nil {
			return err
		}
		args := fmt.Sprintf(`{"task":{"id":%q,"kind":"human","toolId":"echo"},"input":1}`, id)
		a, err := call(ctx, c, d, nil, "execute", args)
		if err != nil {
			return err
		}
		if err := oneOfLegal(c, "syscall.execute", args, a, manifest.ExecutionSuspended, false, id, "S5.ingress.human-step-entry", "I-KERNEL-22"); err != nil {
			return err
		}
	}
	return nil
}

// oneOfLegal holds the answer a of op(args) to the two assertions of a check for a choice between
// refusing and parking: required (citing legal), the kernel refused with nothing appended or
// parked durably — a record of type appended (a timed one with its wakeAt, a human step's with
// condition.stepId step); recommended (citing ours), it refused -32026 with nothing appended.
// An answer that is neither fails both.
func oneOfLegal(c *Case, op, args string, a answer, record string, timed bool, step, legal, ours string) error {
	var errs []error
	park, parked := a.parkedOn(record)
	switch {
	case a.refused():
	case parked && (!timed || wakeAtOf(park)) && (step == "" || conditionStep(park) == step):
	default:
		want := "refused with nothing appended, or parked durably (" + record + " appended"
		switch {
		case timed:
			want += " with a wakeAt"
		case step != "":
			want += " with condition.stepId " + step
		}
		errs = append(errs, c.Cite(legal).Failf(op, args, a.String(), want+")"))
	}
	if !a.refusedWith(carrier.CodeSyscallError) {
		errs = append(errs, c.Cite(ours).Failf(op, args, a.String(), fmt.Sprintf("error %d with nothing appended (refused)", carrier.CodeSyscallError)))
	}
	return errors.Join(errs...)
}

// conditionStep is the condition.stepId a park records, "" when none.
func conditionStep(e spi.Envelope) string {
	var p struct {
		Condition struct {
			StepID string `json:"stepId"`
		} `json:"condition"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	return p.Condition.StepID
}

func parkInBranch(p branchPark) func(context.Context, *Case) error {
	return func(ctx context.Context, c *Case) error {
		if err := needMethods(ctx, c, "syscall."+p.name); err != nil {
			return err
		}
		d, err := startExec(ctx, c, "branch-"+p.name)
		if err != nil {
			return err
		}
		if _, err := syscall(ctx, c, d, "parallel", `{"branches":2}`); err != nil {
			return err
		}
		args := validArgs[p.name]
		a, err := call(ctx, c, d, []int{0}, p.name, args)
		if err != nil {
			return err
		}
		return oneOfLegal(c, "syscall."+p.name, args+" in branch [0] of a two-branch parallel", a, p.record, p.timed, "", p.clause, "I-KERNEL-6")
	}
}
