package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// edgeChecks: the edges docs/wire.md decides where it once left them open — a complete with both
// an output and an error (I-WIRE-44), a replay of a cancelled execution (I-WIRE-42) and of a
// continued one (I-WIRE-43), the execution continueAsNew starts (I-WIRE-46), a crash armed before
// the start (I-WIRE-40), __loom_ step ids and event types (I-WIRE-45, a choice) and an empty
// typed-failure map (I-KERNEL-12, a choice).
func edgeChecks() []kitCheck {
	return []kitCheck{
		check("kernel/driver/complete-output-and-error", spec.MustNot, "execution.complete with both output and error is -32602 (data.field error) with nothing appended, and the holder still drives: its complete with the output alone completes",
			kkCompleteBoth, "I-WIRE-44", "I-WIRE-48"),
		check("kernel/replay/cancelled-complete", spec.MustNot, "a read-only replay of a cancelled execution (attach answers mode replay) serves the calls its log answers, and its complete is a divergence (-32024): the log ends cancelled; nothing is appended",
			kkReplayCancelled, "I-WIRE-42", "I-WIRE-27"),
		check("kernel/wave2/continue-replay", spec.Must, "a read-only replay of a continued execution answers its re-driven continueAsNew with the recorded input {value: null, parked: true, status: continued, continuedTo: the execution it started}, appending nothing; with another input it is -32024 (needs continueAsNew)",
			kkContinueReplay, "I-WIRE-43", "I-WIRE-27", "I-WIRE-21"),
		check("kernel/wave2/continued-awaits-driver", spec.Must, "the execution continueAsNew started shows status running, driver none, awaitingDriver true until a driver attaches, and execution.attach to it answers mode live (needs continueAsNew)",
			kkContinuedAwaits, "I-WIRE-46", "I-WIRE-21"),
		check("kernel/conformance/crash-before-start", spec.Must, "conformance.crash armed before the execution's start takes that envelope of the execution the start creates: at sequence 2 the step's call answers an error that is no step outcome and attach recovers (mode recover); at sequence 0 the start answers such an error and the execution has no log (-32003) (needs the conformance extension)",
			kkCrashBeforeStart, "I-WIRE-40", "I-WIRE-24"),
		check("kernel/reserved/loom-prefix-free", spec.Must, "a step id (execute's task.id, run's stepId) or an emit, stream or ui event type beginning __loom_ is accepted and recorded like any other (our choice, recommended); a kernel that reserves them refuses each -32026 with nothing appended (required)",
			kkLoomPrefixFree, "I-WIRE-45", "I-WIRE-25"),
		check("kernel/syscall/errors-empty-map", spec.Must, "syscall.execute with task.errors [] is taken (never -32602 or -32026), and a typed failure on a channel only the tool declares is answered as a typed failure (-32021) or a degraded untyped one (-32020) (required); the empty map is the step's whole map, so the failure degrades (I-KERNEL-12, recommended)",
			kkErrorsEmptyMap, "I-WIRE-16", "I-KERNEL-12"),
	}
}

func kkCompleteBoth(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "complete-both")
	if err != nil {
		return err
	}
	err = appendsNothing(ctx, c, d.ExecutionID, "a complete with output and error", func() error {
		p := map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "output": 1, "error": map[string]any{"message": "m"}}
		err := c.Store.Call(ctx, carrier.MethodComplete, p, nil)
		if err := wantCode(c.Cite("I-WIRE-44").Failf, carrier.MethodComplete, `{"output":1,"error":{"message":"m"}}`, err, carrier.CodeInvalidParams, ""); err != nil {
			return err
		}
		if got := fieldOf(err); got != "error" {
			return c.Cite("I-WIRE-48").Failf(carrier.MethodComplete, `{"output":1,"error":{"message":"m"}}`, "data.field "+quoteOr(got), `data.field "error"`)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return complete(ctx, c, d, 1)
}

func kkReplayCancelled(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "replay-cancelled")
	if err != nil {
		return err
	}
	step := `{"task":{"id":"a","toolId":"echo"},"input":"a"}`
	if _, err := syscall(ctx, c, d, "execute", step); err != nil {
		return err
	}
	var a carrier.Attached
	if err := c.Store.Call(ctx, carrier.MethodCancel, map[string]any{"executionId": d.ExecutionID}, &a); err != nil {
		return c.Failf(carrier.MethodCancel, d.ExecutionID, err, "status cancelled")
	}
	return appendsNothing(ctx, c, d.ExecutionID, "a replay of the cancelled execution", func() error {
		at, err := attach(ctx, c, d.ExecutionID, "")
		if err != nil {
			return err
		}
		if at.Mode != "replay" {
			return c.Failf(carrier.MethodAttach, "a cancelled execution", "mode "+at.Mode, "mode replay")
		}
		d.Token = at.Driver
		v, _, err := d.Syscall(ctx, "execute", json.RawMessage(step))
		if err != nil || !sameJSON(v, `"a"`) {
			return c.Failf("syscall.execute", step+" (re-driven in the replay)", show(err, "value "+string(v)), `the recorded output "a"`)
		}
		err = c.Store.Call(ctx, carrier.MethodComplete, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "output": "a"}, nil)
		return wantError(c, carrier.MethodComplete, `{"output":"a"} in the replay of a cancelled execution`, err, carrier.CodeReplayDivergence, "")
	})
}

// continued starts an execution, makes one step and continues it as new with input: it returns
// the driver and the id of the execution the continueAsNew started.
func continued(ctx context.Context, c *Case, name string, input string) (*carrier.Driver, string, error) {
	if err := needMethods(ctx, c, "syscall.continueAsNew"); err != nil {
		return nil, "", err
	}
	d, err := startExec(ctx, c, name)
	if err != nil {
		return nil, "", err
	}
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"a","toolId":"echo"},"input":"a"}`); err != nil {
		return nil, "", err
	}
	var res struct {
		Parked      bool   `json:"parked"`
		Status      string `json:"status"`
		ContinuedTo string `json:"continuedTo"`
	}
	args := `{"input":` + input + `}`
	p := map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "args": json.RawMessage(args)}
	if err := c.Store.Call(ctx, "syscall.continueAsNew", p, &res); err != nil || !res.Parked || res.Status != "continued" || res.ContinuedTo == "" {
		return nil, "", c.Failf("syscall.continueAsNew", args, show(err, fmt.Sprintf("parked %v status %q continuedTo %q", res.Parked, res.Status, res.ContinuedTo)),
			"parked: true, status continued and the execution it started")
	}
	return d, res.ContinuedTo, nil
}

func kkContinueReplay(ctx context.Context, c *Case) error {
	d, next, err := continued(ctx, c, "continue-replay", "2")
	if err != nil {
		return err
	}
	replay := func(input string, check func(res map[string]json.RawMessage, err error) error) error {
		return appendsNothing(ctx, c, next, "a replay of the execution it continued from", func() error {
			return appendsNothing(ctx, c, d.ExecutionID, "a replay of the continued execution", func() error {
				at, err := attach(ctx, c, d.ExecutionID, "")
				if err != nil {
					return err
				}
				if at.Mode != "replay" {
					return c.Failf(carrier.MethodAttach, "a continued execution", "mode "+at.Mode, "mode replay")
				}
				d.Token = at.Driver
				if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"a","toolId":"echo"},"input":"a"}`); err != nil {
					return err
				}
				var res map[string]json.RawMessage
				err = c.Store.Call(ctx, "syscall.continueAsNew", map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "args": json.RawMessage(`{"input":` + input + `}`)}, &res)
				return check(res, err)
			})
		})
	}
	err = replay("2", func(res map[string]json.RawMessage, err error) error {
		want := map[string]json.RawMessage{"value": json.RawMessage("null"), "parked": json.RawMessage("true"), "status": json.RawMessage(`"continued"`), "continuedTo": mustJSON(next)}
		if err != nil {
			return c.Failf("syscall.continueAsNew", `{"input":2} re-driven in the replay`, err, fmt.Sprintf("the recorded answer: parked, status continued, continuedTo %q", next))
		}
		for k, v := range want {
			if !sameJSON(res[k], string(v)) {
				return c.Failf("syscall.continueAsNew", `{"input":2} re-driven in the replay`, string(mustJSON(res)), string(mustJSON(want)))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return replay("3", func(_ map[string]json.RawMessage, err error) error {
		return wantError(c, "syscall.continueAsNew", `{"input":3} re-driven in the replay (the log's is 2)`, err, carrier.CodeReplayDivergence, "")
	})
}

func kkContinuedAwaits(ctx context.Context, c *Case) error {
	_, next, err := continued(ctx, c, "continued-awaits", `{"n":2}`)
	if err != nil {
		return err
	}
	st, err := stateOf(ctx, c, next)
	if err != nil {
		return err
	}
	if st.Status != "running" || st.Driver != "none" || !st.AwaitingDriver {
		return c.Failf(carrier.MethodGetState, next+" (continueAsNew started it)", fmt.Sprintf("status %q driver %q awaitingDriver %v", st.Status, st.Driver, st.AwaitingDriver),
			`status "running" driver "none" awaitingDriver true`)
	}
	at, err := attach(ctx, c, next, "")
	if err != nil {
		return err
	}
	if at.Mode != "live" {
		return c.Failf(carrier.MethodAttach, next+" (continueAsNew started it)", "mode "+at.Mode, "mode live")
	}
	return nil
}

func kkCrashBeforeStart(ctx context.Context, c *Case) error {
	if err := needMethods(ctx, c, carrier.MethodConformanceCrash); err != nil {
		return err
	}
	arm := func(id string, seq int) error {
		if err := c.Store.Call(ctx, carrier.MethodConformanceCrash, map[string]any{"executionId": id, "sequence": seq}, nil); err != nil {
			return c.Failf(carrier.MethodConformanceCrash, fmt.Sprintf("%s at %d, before its start", id, seq), err, "armed")
		}
		return nil
	}
	// at sequence 2 (STEP_COMPLETED of the first step): the start goes through, the step crashes
	id := c.ExecID("crash-early")
	if err := arm(id, 2); err != nil {
		return err
	}
	var a carrier.Attached
	if err := c.Store.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "kit.crash-early", "executionId": id, "input": 1}, &a); err != nil {
		return c.Failf(carrier.MethodStart, id+" (a crash armed at 2)", err, "a started execution")
	}
	d := &carrier.Driver{C: c.Store, ExecutionID: id, Token: a.Driver}
	step := `{"task":{"id":"a","toolId":"echo"},"input":"a"}`
	_, _, err := d.Syscall(ctx, "execute", json.RawMessage(step))
	if ce, ok := asCall(err); !ok || stepOutcome(ce.RPC.Code) {
		return c.Failf("syscall.execute", step+" (the crash armed before the start takes its STEP_COMPLETED)", show(err, "success"), "an error answer that is no step outcome: the run crashed")
	}
	at, err := attach(ctx, c, id, "")
	if err != nil {
		return err
	}
	if at.Mode != "recover" {
		return c.Failf(carrier.MethodAttach, id+" (crashed)", "mode "+at.Mode, "mode recover")
	}
	// at sequence 0: the start itself crashes and nothing is written
	id0 := c.ExecID("crash-start")
	if err := arm(id0, 0); err != nil {
		return err
	}
	err = c.Store.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "kit.crash-start", "executionId": id0, "input": 1}, nil)
	if ce, ok := asCall(err); !ok || ce.RPC.Code == carrier.CodeAlreadyExists || ce.RPC.Code == carrier.CodeInvalidParams {
		return c.Failf(carrier.MethodStart, id0+" (a crash armed at 0)", show(err, "started"), "an error answer: the start crashed")
	}
	err = c.Store.Call(ctx, carrier.MethodGetState, map[string]any{"executionId": id0}, nil)
	return wantError(c, carrier.MethodGetState, id0+" (its start crashed at envelope 0)", err, carrier.CodeNotFound, "")
}

// stepOutcome reports whether code is a step's outcome (a failure the flow sees), not a fault.
func stepOutcome(code int) bool {
	switch code {
	case carrier.CodeStepFailed, carrier.CodeTypedFailure, carrier.CodeQuotaExceeded:
		return true
	}
	return false
}

func kkLoomPrefixFree(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "loom-prefix")
	if err != nil {
		return err
	}
	calls := []struct{ op, args string }{
		{"execute", `{"task":{"id":"__loom_step","toolId":"echo"},"input":1}`},
		{"run", `{"stepId":"__loom_run","toolId":"echo","input":1}`},
		{"emit", `{"eventType":"__loom_note","payload":1}`},
		{"stream", `{"eventType":"__loom_token","payload":"t"}`},
		{"ui", `{"eventType":"__loom_view","payload":{}}`},
	}
	var refused []string
	for i, k := range calls {
		c.Progress(i, len(calls))
		before, err := logOf(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		_, _, cerr := d.Syscall(ctx, k.op, json.RawMessage(k.args))
		after, err := logOf(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		if cerr == nil {
			if len(after) == len(before) {
				return c.Cite("I-WIRE-25").Failf("log", d.ExecutionID+" after syscall."+k.op+" "+k.args, "nothing appended", "the call recorded, as it was accepted")
			}
			continue
		}
		if err := wantCode(c.Cite("I-WIRE-25").Failf, "syscall."+k.op, k.args+" (refused as reserved?)", cerr, carrier.CodeSyscallError, ""); err != nil {
			return err
		}
		if len(after) != len(before) {
			return c.Cite("I-WIRE-25").Failf("log", d.ExecutionID+" after the refused syscall."+k.op, fmt.Sprintf("%d → %d envelopes", len(before), len(after)), "nothing appended")
		}
		refused = append(refused, "syscall."+k.op+" "+k.args)
	}
	if len(refused) > 0 {
		return c.Cite("I-WIRE-45").Failf("syscall.*", "ids and event types beginning __loom_", fmt.Sprintf("refused (-32026): %v", refused), "accepted and recorded (not reserved: our choice)")
	}
	return nil
}

func kkErrorsEmptyMap(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "errors-empty")
	if err != nil {
		return err
	}
	args := `{"task":{"id":"t","toolId":"fail-typed","errors":[]},"input":{"channel":"declined","payload":{"why":"card"}}}`
	_, _, err = d.Syscall(ctx, "execute", json.RawMessage(args))
	ce, ok := asCall(err)
	if !ok || ce.RPC.Code != carrier.CodeTypedFailure && ce.RPC.Code != carrier.CodeStepFailed {
		return c.Cite("I-WIRE-16").Failf("syscall.execute", args, show(err, "success"), "a typed failure (-32021) or a degraded untyped one (-32020): errors [] is a map the wire takes")
	}
	if ce.RPC.Code != carrier.CodeStepFailed {
		return c.Cite("I-KERNEL-12").Failf("syscall.execute", args, fmt.Sprintf("error %d (kind %s): the tool's channel served", ce.RPC.Code, ce.Kind()),
			"error -32020: the step's empty map is its whole map, so \"declined\" is undeclared and the failure degrades")
	}
	return nil
}
