package kernelkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// Case is what a kernel check runs against: a client of the kernel's wire ABI.
type Case = kits.Case[*carrier.Client]

// Check is one check of the kernel kit.
type Check = kits.Check[*carrier.Client]

// Name is the kit's name, and the certify kind.
const Name = "kernel"

// Kit returns the kernel kit: every check of every family, in a fixed order. It assumes the
// kernel is served with the conformance profile (docs/wire.md): the fake tools, the rings and the
// token budget of carrier.ProfileConfig.
func Kit() kits.Kit[*carrier.Client] {
	var cs []Check
	for _, k := range kitChecks() {
		cs = append(cs, k.Check)
	}
	return kits.Kit[*carrier.Client]{Name: Name, Checks: cs}
}

// kitCheck is a check of the kit as its family builds it: the check, and ours, the choices only
// its recommended assertion cites. A check makes several comparisons, each citing its own clauses
// (Case.Cite; a tier per assertion, DESIGN §7.1): one that exists for a choice asks, required,
// whether the kernel's behaviour is one of the legal options the spec leaves — citing the spec
// clause any other behaviour breaks — and, recommended, whether it is ours, citing the choice; a
// check that drives a flow script compares the run up to our choices (required) and exactly
// (recommended, citing the choices its run touches). The required assertions cite the check's
// other clauses.
type kitCheck struct {
	Check
	ours []string
}

// kitChecks lists the kit's checks with the choices only their recommended assertions cite.
func kitChecks() []kitCheck {
	var cs []kitCheck
	for _, f := range []func() []kitCheck{handshakeChecks, syscallChecks, ringChecks, driverChecks, fencingChecks,
		ingressChecks, errorChecks, badInputChecks, reconnectChecks, replayChecks, terminalChecks, streamChecks,
		profileChecks, structureChecks, wave2Checks, shapeChecks, edgeChecks, wedgeChecks, streamEdgeChecks, classChecks, scriptChecks, exploreChecks} {
		cs = append(cs, f()...)
	}
	return cs
}

// check builds a check: id, what it does, how, and the clauses it enforces.
func check(id string, level spec.Level, doc string, run func(context.Context, *Case) error, clauses ...string) kitCheck {
	return kitCheck{Check: Check{ID: id, Clauses: clauses, Level: level, Doc: doc, Run: run}}
}

// choiceCheck builds a check that exists for a choice (kitCheck): run's required assertions cite
// legal, the spec clauses a behaviour outside the legal options breaks, and its recommended ones
// ours, the choices.
func choiceCheck(id string, level spec.Level, doc string, run func(context.Context, *Case) error, legal, ours []string) kitCheck {
	k := check(id, level, doc, run, append(slices.Clone(legal), ours...)...)
	k.ours = ours
	return k
}

// asCall returns the kernel's error answer in err.
func asCall(err error) (*carrier.CallError, bool) {
	var ce *carrier.CallError
	ok := errors.As(err, &ce)
	return ce, ok
}

// handshake asks for the kernel's handshake.
func handshake(ctx context.Context, c *Case) (carrier.Handshake, error) {
	var hs carrier.Handshake
	if err := c.Store.Call(ctx, carrier.MethodHandshake, map[string]any{}, &hs); err != nil {
		return hs, c.Failf(carrier.MethodHandshake, "", err, "a handshake")
	}
	return hs, nil
}

// serves reports whether the handshake lists method.
func serves(hs carrier.Handshake, method string) bool {
	return slices.ContainsFunc(hs.Methods, func(m carrier.Method) bool { return m.Name == method })
}

// needMethods ends the check as skip unless the kernel's handshake lists every method.
func needMethods(ctx context.Context, c *Case, methods ...string) error {
	hs, err := handshake(ctx, c)
	if err != nil {
		return err
	}
	var missing []string
	for _, m := range methods {
		if !serves(hs, m) {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return c.Skip("the kernel's handshake does not list %s (an optional method: nothing to check)", strings.Join(missing, ", "))
	}
	return nil
}

// startExec starts an execution of a throwaway wire flow and returns its driver.
func startExec(ctx context.Context, c *Case, name string) (*carrier.Driver, error) {
	id := c.ExecID(name)
	var a carrier.Attached
	if err := c.Store.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "kit." + name, "executionId": id, "input": name}, &a); err != nil {
		return nil, c.Failf(carrier.MethodStart, id, err, "a started execution")
	}
	if a.Driver == "" {
		return nil, c.Failf(carrier.MethodStart, id, "no driver token", "a driver token")
	}
	return &carrier.Driver{C: c.Store, ExecutionID: id, Token: a.Driver}, nil
}

// syscall makes one syscall that must succeed and returns its value.
func syscall(ctx context.Context, c *Case, d *carrier.Driver, name, args string) (json.RawMessage, error) {
	v, _, err := d.Syscall(ctx, name, json.RawMessage(args))
	if err != nil {
		return nil, c.Failf("syscall."+name, args, err, "success")
	}
	return v, nil
}

// park makes a suspend on gate that must park the run.
func park(ctx context.Context, c *Case, d *carrier.Driver, gate string) error {
	args := `{"on":` + string(mustJSON(gate)) + `}`
	_, parked, err := d.Syscall(ctx, "suspend", json.RawMessage(args))
	if err != nil || !parked {
		return c.Failf("syscall.suspend", args, show(err, "answered without parking"), "parked: true")
	}
	return nil
}

// attach takes the driver seat of execID (token "" = a new driver) and returns the answer.
func attach(ctx context.Context, c *Case, execID, token string) (carrier.Attached, error) {
	p := map[string]any{"executionId": execID}
	if token != "" {
		p["driver"] = token
	}
	var a carrier.Attached
	if err := c.Store.Call(ctx, carrier.MethodAttach, p, &a); err != nil {
		return a, c.Failf(carrier.MethodAttach, execID, err, "a driver token")
	}
	return a, nil
}

// resumeAttached answers the execution's park with eventType and payload, taking the seat.
func resumeAttached(ctx context.Context, c *Case, d *carrier.Driver, eventType string, payload any) error {
	var a carrier.Attached
	p := map[string]any{"executionId": d.ExecutionID, "eventType": eventType, "payload": payload, "attach": true}
	if err := c.Store.Call(ctx, carrier.MethodResume, p, &a); err != nil {
		return c.Failf(carrier.MethodResume, eventType, err, "accepted, with a driver token")
	}
	d.Token = a.Driver
	return nil
}

// complete ends the run the driver holds with output.
func complete(ctx context.Context, c *Case, d *carrier.Driver, output any) error {
	var a carrier.Attached
	err := c.Store.Call(ctx, carrier.MethodComplete, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "output": output}, &a)
	if err != nil || a.Status != "completed" {
		return c.Failf(carrier.MethodComplete, d.ExecutionID, show(err, "status "+a.Status), "status completed")
	}
	return nil
}

// logOf reads the execution's log (execution.getState with includeLog).
func logOf(ctx context.Context, c *Case, id string) ([]spi.Envelope, error) {
	r, err := carrier.State(ctx, c.Store, id)
	if err != nil {
		return nil, c.Failf(carrier.MethodGetState, id, err, "the execution's log")
	}
	return r.Log, nil
}

// stateOf reads the execution's getState answer.
func stateOf(ctx context.Context, c *Case, id string) (carrier.StateResult, error) {
	var st carrier.StateResult
	if err := c.Store.Call(ctx, carrier.MethodGetState, map[string]any{"executionId": id}, &st); err != nil {
		return st, c.Failf(carrier.MethodGetState, id, err, "the execution's state")
	}
	return st, nil
}

// appendsNothing runs act, which must leave the execution's log as it was.
func appendsNothing(ctx context.Context, c *Case, id, what string, act func() error) error {
	before, err := logOf(ctx, c, id)
	if err != nil {
		return err
	}
	if err := act(); err != nil {
		return err
	}
	after, err := logOf(ctx, c, id)
	if err != nil {
		return err
	}
	if len(after) != len(before) {
		var added []string
		for _, e := range after[min(len(before), len(after)):] {
			added = append(added, e.EventType)
		}
		return c.Failf("log", id+" after "+what, fmt.Sprintf("%d → %d envelopes (+%s)", len(before), len(after), strings.Join(added, " ")), "nothing appended")
	}
	return nil
}

// wantError holds the answer of op(args) to an error with code and, when kind is not empty,
// data.kind kind, as a violation of every clause of the check.
func wantError(c *Case, op, args string, err error, code int, kind string) error {
	return wantCode(c.Failf, op, args, err, code, kind)
}

// failf reports one comparison's violation: Case.Failf, or the Failf of an Assertion (Case.Cite)
// naming the comparison's own clauses.
type failf func(op, args string, got, want any) error

// wantCode is wantError reporting through fail.
func wantCode(fail failf, op, args string, err error, code int, kind string) error {
	want := fmt.Sprintf("error %d", code)
	if kind != "" {
		want += fmt.Sprintf(" (kind %s)", kind)
	}
	ce, ok := asCall(err)
	if !ok {
		return fail(op, args, show(err, "accepted"), want)
	}
	if ce.RPC.Code != code || kind != "" && ce.Kind() != kind {
		return fail(op, args, fmt.Sprintf("error %d (kind %s): %s", ce.RPC.Code, ce.Kind(), ce.RPC.Message), want)
	}
	return nil
}

// show describes an answer: the error, or what happened instead.
func show(err error, instead string) string {
	if err != nil {
		return err.Error()
	}
	return instead
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// entry is one envelope as a line to compare: its type and its payload as a value.
func entry(eventType, payload string) string {
	return eventType + " " + string(normValue(json.RawMessage(payload)))
}
