package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// syscallChecks: each syscall's arguments, answers and refusals (spec §2, §5; docs/wire.md
// "Methods").
func syscallChecks() []kitCheck {
	out := []kitCheck{
		check("kernel/syscall/execute-served", spec.Must, "after a resume the re-driven steps are served from the log: each step of the flow starts once",
			kkExecuteServed, "S2.execute.served-not-rerun", "S3.resume.rerun-served", "A26.wire.kernel-authoritative"),
		check("kernel/syscall/execute-unknown-tool", spec.MustNot, "syscall.execute of a toolId the kernel has no effect for is refused -32026 (kind syscall) with nothing appended",
			kkUnknownTool, "I-WIRE-25"),
		check("kernel/syscall/decide-served", spec.Must, "a re-driven decide is answered the recorded choice, whatever choice the driver sends, and records nothing more",
			kkDecideServed, "S1.P9.decision-logged", "S3.resume.rerun-served"),
		check("kernel/syscall/decide-error", spec.Must, "syscall.decide {id, error: {message}} (the driver's decider failed) records nothing and answers -32020 kind decider",
			kkDecideError, "I-WIRE-16", "I-WIRE-25"),
		check("kernel/syscall/parallel-bad-calls", spec.MustNot, "a call in a branch that is not open is -32025 (kind branch), a negative branch index and an end at the flow's top are -32602, an open of 0 branches is -32026; none appends",
			kkParallelBad, "I-WIRE-11", "I-WIRE-25"),
		check("kernel/syscall/suspend-answer", spec.Must, "a syscall that parks answers {value: null, parked: true, status: suspended, suspendedOn: GATE}, the seat ends, and getState shows the park",
			kkSuspendAnswer, "I-WIRE-27", "A26.wire.kernel-authoritative"),
		check("kernel/syscall/sleep", spec.Must, "syscall.sleep {ms} parks with a recorded wakeAt ms past the kernel's clock (on any gate: which is kernel/syscall/timer-gate's); TIMER_FIRED {wakeAt} wakes it and the re-driven sleep answers {value: null}",
			kkSleep, "S5.timer.durable-wakeat", "S5.timer.time-in-log", "S5.ingress.timer-needs-wakeat", "I-WIRE-27"),
		check("kernel/syscall/sleepUntil", spec.Must, "syscall.sleepUntil {wakeAt} parks with that wakeAt recorded; TIMER_FIRED {wakeAt} wakes it and the re-driven sleepUntil answers {value: null}",
			kkSleepUntil, "S5.timer.durable-wakeat", "S5.timer.time-in-log", "S5.ingress.timer-needs-wakeat", "I-WIRE-27"),
		choiceCheck("kernel/syscall/timer-gate", spec.Must, "syscall.sleep and syscall.sleepUntil park with a recorded wakeAt (required) on the gate TIMER_FIRED (recommended: ours; TIMER_FIRED wakes a timed park on any gate)",
			kkTimerGate, []string{"S5.timer.durable-wakeat"}, []string{"I-KERNEL-7"}),
		check("kernel/syscall/emit-kernel-types", spec.MustNot, "syscall.emit of every kernel event type but the seven userspace may write is refused -32023 (kind emit-refused) with nothing appended",
			kkEmitKernelTypes, "S5.emit.userspace-kernel-refused", "A26.wire.no-new-facts", "A26.wire.rings-kernel-side"),
		check("kernel/syscall/emit-allowed-validated", spec.MustNot, "of the seven kernel types userspace may emit, a negative RESOURCE_METERED, an empty QUOTA_EXCEEDED reason and a DECISION_RECORDED changing a recorded choice are refused -32023 with nothing appended",
			kkEmitValidated, "S5.emit.metered-valid", "S5.emit.quota-reason-bounded", "S5.emit.no-choice-change"),
		check("kernel/syscall/emit-envelope-fields", spec.MustNot, "a syscall whose args carry an envelope field (metadata with a flowEmit stamp, sequence, id) is refused -32602 naming the field, with nothing appended",
			kkEnvelopeFields, "A26.wire.no-new-facts", "I-WIRE-6"),
	}
	out = append(out, runCheck("kernel/syscall/execute", "syscall.execute with every task member (id, kind, toolId, timeoutMs, atMostOnce, errors) and an input records what the in-process run does and answers the step's output", executeScript(), "S2.execute.kinds-by-toolid", "A26.wire.projection", "I-WIRE-16"))
	out = append(out, runCheck("kernel/syscall/run", "syscall.run {stepId, toolId, input} records exactly what execute of the same step does", runScript(), "S2.run.alias", "A26.wire.projection"))
	out = append(out, runCheck("kernel/syscall/decide", "syscall.decide {id, choice, context, policy} records DECISION_RECORDED with context and policy and answers the choice", decideScript(), "S1.P9.decision-logged", "I-WIRE-16"))
	out = append(out, runCheck("kernel/syscall/parallel", "syscall.parallel opens, ends and joins branches (nested ones included) as the in-process run with serial branches records them", parallelScript(), "I-WIRE-11"))
	out = append(out, runCheck("kernel/syscall/suspend", "syscall.suspend {on, correlationKey} records the park as the in-process run does and is answered by the resume on re-drive", suspendScript(), "S5.suspend.config", "S5.resume.by-execution-id", "S5.resume.correlation-optional"))
	out = append(out, runCheck("kernel/syscall/emit", "syscall.emit {eventType, payload} appends the event (stamped as spec §3 says) and is served, not appended again, on the re-drive after a resume", emitScript(), "S3.emit.once", "S3.emit.stamp", "S3.emit.serve-skip"))
	out = append(out, runCheck("kernel/syscall/stream-ui-unary", "the unary forms of the channel syscalls stream and ui append one event each, as the in-process run does", channelScript(), "A26.wire.partition", "I-WIRE-7"))
	return out
}

// scriptCase decodes an inline flow script and driver (a literal of this package: an error is a
// harness bug).
func scriptCase(name, flow, driver string) clients.Case {
	s, err := flowscript.Decode(name+"/flow.json", []byte(flow))
	if err != nil {
		panic(fmt.Sprintf("kernelkit: script %s: %v", name, err))
	}
	d, err := flowscript.DecodeDriver(name+"/driver.json", []byte(driver))
	if err != nil {
		panic(fmt.Sprintf("kernelkit: driver %s: %v", name, err))
	}
	return clients.Case{Name: name, Script: s, Driver: d}
}

const startOnly = `{"format":"loom-driver/1","actions":[{"do":"start","input":{"n":1}}]}`

func executeScript() clients.Case {
	return scriptCase("execute", `{"format":"loom-flowscript/1","id":"kit.execute","body":[
		{"op":"execute","id":"a","kind":"tool","tool":"echo","input":{"$ref":"input"},"timeoutMs":5000,"errors":["declined"],"bind":"a"},
		{"op":"execute","id":"b","tool":"fail-typed","input":{"channel":"declined","payload":{"why":"card"}},"errors":["declined"],"onError":"continue","bind":"b"},
		{"op":"execute","id":"c","tool":"once","atMostOnce":true,"input":[1,"two",{"three":3.5}],"bind":"c"}],
		"return":[{"$ref":"a"},{"$ref":"b"},{"$ref":"c"}]}`, startOnly)
}

func runScript() clients.Case {
	return scriptCase("run", `{"format":"loom-flowscript/1","id":"kit.run","body":[
		{"op":"run","id":"r","tool":"echo","input":{"k":"v"},"bind":"r"}],"return":{"$ref":"r"}}`, startOnly)
}

func decideScript() clients.Case {
	return scriptCase("decide", `{"format":"loom-flowscript/1","id":"kit.decide","body":[
		{"op":"decide","id":"route","choice":{"lane":"fast"},"context":{"seen":[1,2]},"policy":{"name":"p","propensity":0.25},"bind":"r"}],
		"return":{"$ref":"r"}}`, startOnly)
}

func parallelScript() clients.Case {
	return scriptCase("parallel", `{"format":"loom-flowscript/1","id":"kit.parallel","body":[
		{"op":"parallel","bind":"p","branches":[
			[{"op":"execute","id":"l","tool":"echo","input":"L","bind":"l"},
			 {"op":"parallel","bind":"q","branches":[[{"op":"execute","id":"l0","tool":"echo","input":0}],[{"op":"decide","id":"l1","choice":1}]]}],
			[{"op":"emit","eventType":"kit.right","payload":{"r":true}},{"op":"execute","id":"r","tool":"echo","input":"R","bind":"r"}]]}],
		"return":{"$ref":"p"}}`, startOnly)
}

func suspendScript() clients.Case {
	return scriptCase("suspend", `{"format":"loom-flowscript/1","id":"kit.suspend","body":[
		{"op":"execute","id":"a","tool":"echo","input":1},
		{"op":"suspend","on":"approve","correlationKey":"order-7","bind":"ok"},
		{"op":"execute","id":"b","tool":"echo","input":{"$ref":"ok"},"bind":"b"}],"return":{"$ref":"b"}}`,
		`{"format":"loom-driver/1","actions":[{"do":"start"},{"do":"resume","eventType":"approve","payload":{"by":"ops","ok":true}}]}`)
}

func emitScript() clients.Case {
	return scriptCase("emit", `{"format":"loom-flowscript/1","id":"kit.emit","body":[
		{"op":"emit","eventType":"kit.progress","payload":{"step":1}},
		{"op":"suspend","on":"go"},
		{"op":"emit","eventType":"kit.progress","payload":{"step":2}}],"return":null}`,
		`{"format":"loom-driver/1","actions":[{"do":"start"},{"do":"resume","eventType":"go","payload":true}]}`)
}

func channelScript() clients.Case {
	return scriptCase("channel", `{"format":"loom-flowscript/1","id":"kit.channel","body":[
		{"op":"stream","eventType":"token","payload":"hel"},
		{"op":"stream","eventType":"token","payload":"lo"},
		{"op":"ui","eventType":"card","payload":{"title":"hi","rows":[1,2]}}],"return":"done"}`, startOnly)
}

func kkExecuteServed(ctx context.Context, c *Case) error {
	k := scriptCase("served", `{"format":"loom-flowscript/1","id":"kit.served","body":[
		{"op":"execute","id":"a","tool":"echo","input":"a"},
		{"op":"suspend","on":"go"},
		{"op":"execute","id":"b","tool":"echo","input":"b"}],"return":"ok"}`,
		`{"format":"loom-driver/1","actions":[{"do":"start","input":1},{"do":"resume","eventType":"go","payload":true}]}`)
	got, err := driveCase(ctx, c, k, comparison{})
	if err != nil {
		return err
	}
	return c.Diff("log", "STEP_STARTED per step after a resume and a replay", map[string]int{"a": 1, "b": 1}, carrier.StepStarts(got.Log))
}

func kkUnknownTool(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "tool")
	if err != nil {
		return err
	}
	args := `{"task":{"id":"u","toolId":"no-such-tool"},"input":1}`
	return appendsNothing(ctx, c, d.ExecutionID, "an unknown toolId", func() error {
		_, _, err := d.Syscall(ctx, "execute", json.RawMessage(args))
		return wantError(c, "syscall.execute", args, err, carrier.CodeSyscallError, "syscall")
	})
}

func kkDecideServed(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "decide")
	if err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "decide", `{"id":"pick","choice":"first"}`); err != nil {
		return err
	}
	if err := park(ctx, c, d, "go"); err != nil {
		return err
	}
	if err := resumeAttached(ctx, c, d, "go", true); err != nil {
		return err
	}
	return appendsNothing(ctx, c, d.ExecutionID, "the re-driven decide", func() error {
		v, err := syscall(ctx, c, d, "decide", `{"id":"pick","choice":"second"}`)
		if err != nil {
			return err
		}
		if !sameJSON(v, `"first"`) {
			return c.Failf("syscall.decide", `{"id":"pick","choice":"second"} (re-driven)`, string(v), `"first" (the recorded choice)`)
		}
		return nil
	})
}

func kkDecideError(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "decider")
	if err != nil {
		return err
	}
	args := `{"id":"guess","error":{"message":"no model"}}`
	return appendsNothing(ctx, c, d.ExecutionID, "a failed decider", func() error {
		_, _, err := d.Syscall(ctx, "decide", json.RawMessage(args))
		return wantError(c, "syscall.decide", args, err, carrier.CodeStepFailed, "decider")
	})
}

func kkParallelBad(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "branches")
	if err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "parallel", `{"branches":2}`); err != nil {
		return err
	}
	calls := []struct {
		name   string
		path   []int
		op     string
		args   string
		code   int
		kind   string
		before func() error
	}{
		{"a call in a branch that is not open", []int{5}, "execute", `{"task":{"id":"x","toolId":"echo"},"input":1}`, carrier.CodeNotRunnable, "branch", nil},
		{"a negative branch index", []int{-1}, "execute", `{"task":{"id":"y","toolId":"echo"},"input":1}`, carrier.CodeInvalidParams, "", nil},
		{"an end at the flow's top", nil, "parallel", `{"end":{"output":1}}`, carrier.CodeInvalidParams, "", nil},
		{"an open of 0 branches in a branch", []int{0}, "parallel", `{"branches":0}`, carrier.CodeSyscallError, "", nil},
	}
	for i, k := range calls {
		c.Progress(i, len(calls))
		err := appendsNothing(ctx, c, d.ExecutionID, k.name, func() error {
			_, _, err := d.SyscallAt(ctx, k.path, k.op, json.RawMessage(k.args))
			return wantError(c, "syscall."+k.op, fmt.Sprintf("%s at branch %v: %s", k.name, k.path, k.args), err, k.code, k.kind)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func kkSuspendAnswer(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "park")
	if err != nil {
		return err
	}
	var res struct {
		Value       json.RawMessage `json:"value"`
		Parked      bool            `json:"parked"`
		Status      string          `json:"status"`
		SuspendedOn string          `json:"suspendedOn"`
	}
	p := map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "args": map[string]any{"on": "approve"}}
	if err := c.Store.Call(ctx, "syscall.suspend", p, &res); err != nil {
		return c.Failf("syscall.suspend", `{"on":"approve"}`, err, "parked")
	}
	if string(res.Value) != "null" || !res.Parked || res.Status != "suspended" || res.SuspendedOn != "approve" {
		return c.Failf("syscall.suspend", `{"on":"approve"}`, fmt.Sprintf("value %s parked %v status %q suspendedOn %q", res.Value, res.Parked, res.Status, res.SuspendedOn),
			`value null parked true status "suspended" suspendedOn "approve"`)
	}
	st, err := stateOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	if st.Status != "suspended" || st.SuspendedOn != "approve" || st.Driver != "none" {
		return c.Failf(carrier.MethodGetState, d.ExecutionID, fmt.Sprintf("status %q suspendedOn %q driver %q", st.Status, st.SuspendedOn, st.Driver), `status "suspended" suspendedOn "approve" driver "none"`)
	}
	_, _, err = d.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"after","toolId":"echo"},"input":1}`))
	return wantError(c, "syscall.execute", "with the token of the seat the park ended", err, carrier.CodeFenced, "")
}

// timedPark reads the gate and the wakeAt of the execution's timed park.
func timedPark(ctx context.Context, c *Case, id string) (string, int64, error) {
	st, err := stateOf(ctx, c, id)
	if err != nil {
		return "", 0, err
	}
	var s struct {
		Variables struct {
			SuspendedOn struct {
				On     string `json:"on"`
				WakeAt *int64 `json:"wakeAt"`
			} `json:"_suspendedOn"`
		} `json:"variables"`
	}
	if json.Unmarshal(st.State, &s) != nil || s.Variables.SuspendedOn.On == "" || s.Variables.SuspendedOn.WakeAt == nil {
		return "", 0, c.Failf(carrier.MethodGetState, id, string(st.State), "variables._suspendedOn {on: a gate, wakeAt: a number}")
	}
	return s.Variables.SuspendedOn.On, *s.Variables.SuspendedOn.WakeAt, nil
}

// timer parks the driver's run on a timer (syscall name with args), fires it and re-drives: the
// re-driven call answers {value: null}. check holds the recorded wakeAt.
func timer(ctx context.Context, c *Case, name, args string, check func(wakeAt int64) error) error {
	d, err := startExec(ctx, c, name)
	if err != nil {
		return err
	}
	_, parked, err := d.Syscall(ctx, name, json.RawMessage(args))
	if err != nil || !parked {
		return c.Failf("syscall."+name, args, show(err, "answered without parking"), "parked")
	}
	_, wakeAt, err := timedPark(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	if err := check(wakeAt); err != nil {
		return err
	}
	if err := resumeAttached(ctx, c, d, manifest.TimerFired, map[string]int64{"wakeAt": wakeAt}); err != nil {
		return err
	}
	v, parked, err := d.Syscall(ctx, name, json.RawMessage(args))
	if err != nil || parked || string(v) != "null" {
		return c.Failf("syscall."+name, args+" (re-driven after the timer fired)", fmt.Sprintf("value %s parked %v error %v", v, parked, err), "value null, not parked")
	}
	return complete(ctx, c, d, "woke")
}

func kkSleep(ctx context.Context, c *Case) error {
	// the kernel's clock is its own: the wakeAt is held to lie ms past a time the kernel read
	// between the start and the sleep (its log's timestamps)
	return timer(ctx, c, "sleep", `{"ms":60000}`, func(wakeAt int64) error {
		if wakeAt < 60000 {
			return c.Failf(carrier.MethodGetState, "_suspendedOn.wakeAt", wakeAt, "the kernel's clock (epoch ms) + 60000")
		}
		return nil
	})
}

func kkSleepUntil(ctx context.Context, c *Case) error {
	const at = 1_800_000_000_000
	return timer(ctx, c, "sleepUntil", fmt.Sprintf(`{"wakeAt":%d}`, at), func(wakeAt int64) error {
		if wakeAt != at {
			return c.Failf(carrier.MethodGetState, "_suspendedOn.wakeAt", wakeAt, fmt.Sprint(at))
		}
		return nil
	})
}

func kkTimerGate(ctx context.Context, c *Case) error {
	for _, k := range []struct{ name, args string }{{"sleep", `{"ms":60000}`}, {"sleepUntil", `{"wakeAt":1800000000000}`}} {
		d, err := startExec(ctx, c, "gate-"+k.name)
		if err != nil {
			return err
		}
		if _, parked, err := d.Syscall(ctx, k.name, json.RawMessage(k.args)); err != nil || !parked {
			return c.Failf("syscall."+k.name, k.args, show(err, "answered without parking"), "parked")
		}
		on, _, err := timedPark(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		if on != manifest.TimerFired {
			return c.Cite("I-KERNEL-7").Failf(carrier.MethodGetState, d.ExecutionID+" after syscall."+k.name+" "+k.args, "variables._suspendedOn.on "+on, "TIMER_FIRED")
		}
	}
	return nil
}

// userspaceKernelTypes are the kernel event types userspace emits may write (spec §5).
var userspaceKernelTypes = []string{manifest.ResourceMetered, manifest.QuotaExceeded, manifest.SafetyBlocked, manifest.EgressDenied,
	manifest.EffectDenied, manifest.OutcomeRecorded, manifest.DecisionRecorded}

func kkEmitKernelTypes(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "forge")
	if err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"s","toolId":"echo"},"input":1}`); err != nil {
		return err
	}
	types := manifest.EventTypes()
	for i, t := range types {
		c.Progress(i, len(types))
		if slices.Contains(userspaceKernelTypes, t.Name) {
			continue
		}
		args := fmt.Sprintf(`{"eventType":%q,"payload":{"stepId":"s","output":"forged"}}`, t.Name)
		err := appendsNothing(ctx, c, d.ExecutionID, "emit "+t.Name, func() error {
			_, _, err := d.Syscall(ctx, "emit", json.RawMessage(args))
			return wantError(c, "syscall.emit", args, err, carrier.CodeRefused, "emit-refused")
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func kkEmitValidated(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "validate")
	if err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "decide", `{"id":"pick","choice":"a"}`); err != nil {
		return err
	}
	for i, args := range []string{
		`{"eventType":"RESOURCE_METERED","payload":{"tokens":-1}}`,
		`{"eventType":"QUOTA_EXCEEDED","payload":{"reason":""}}`,
		`{"eventType":"DECISION_RECORDED","payload":{"id":"pick","choice":"b"}}`,
	} {
		c.Progress(i, 3)
		err := appendsNothing(ctx, c, d.ExecutionID, args, func() error {
			_, _, err := d.Syscall(ctx, "emit", json.RawMessage(args))
			return wantError(c, "syscall.emit", args, err, carrier.CodeRefused, "emit-refused")
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func kkEnvelopeFields(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "fields")
	if err != nil {
		return err
	}
	for i, args := range []string{
		`{"eventType":"kit.progress","payload":{"n":1},"metadata":{"flowEmit":"0123456789abcdef","kernel":true}}`,
		`{"eventType":"kit.progress","payload":{"n":1},"sequence":99}`,
		`{"eventType":"kit.progress","payload":{"n":1},"id":"forged-id"}`,
	} {
		c.Progress(i, 3)
		err := appendsNothing(ctx, c, d.ExecutionID, args, func() error {
			_, _, err := d.Syscall(ctx, "emit", json.RawMessage(args))
			return wantError(c, "syscall.emit", args, err, carrier.CodeInvalidParams, "")
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sameJSON reports whether raw holds the JSON value of want (values, numbers exactly).
func sameJSON(raw json.RawMessage, want string) bool {
	return string(normValue(raw)) == string(normValue(json.RawMessage(want)))
}
