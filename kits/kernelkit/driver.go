package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// driverChecks: the driver contract of ADR 0026 A3 as docs/wire.md writes it — start, complete,
// cancel, a resume with no driver, attach and its modes, a crashed run's recovery.
func driverChecks() []kitCheck {
	return []kitCheck{
		check("kernel/driver/start", spec.Must, "execution.start answers {executionId, status running, driver, mode live}, records EXECUTION_STARTED {flowId, input} and getState shows the driver attached",
			kkStart, "A26.carrier.methods", "I-WIRE-2", "I-WIRE-27"),
		check("kernel/driver/start-exists", spec.MustNot, "execution.start of an execution that exists is refused -32004 (kind exists) with nothing appended",
			kkStartExists, "I-WIRE-2", "I-WIRE-25"),
		check("kernel/driver/start-budget", spec.Must, "execution.start {budget} gives the execution its own caps (admission control refuses once they are spent); a cap that is not a finite, non-negative number is -32602",
			kkStartBudget, "I-WIRE-17", "S8.budget.may-cap"),
		check("kernel/driver/complete", spec.Must, "execution.complete {output} records EXECUTION_COMPLETED {output} and answers status completed with the output; {error: {message}} records EXECUTION_FAILED {error: {message}} and answers status failed",
			kkComplete, "I-WIRE-2", "A26.wire.kernel-authoritative"),
		check("kernel/driver/cancel-live", spec.Must, "execution.cancel {reason} of a run a driver holds records EXECUTION_CANCELLED {reason}, answers status cancelled and ends the seat: the driver's next call is refused",
			kkCancelLive, "A26.carrier.methods", "I-WIRE-29"),
		check("kernel/driver/cancel-parked", spec.Must, "execution.cancel of a parked execution records EXECUTION_CANCELLED and folds cancelled",
			kkCancelParked, "A26.carrier.methods", "I-WIRE-29"),
		check("kernel/driver/resume-without-driver", spec.Must, "a resume with no driver is recorded at once, getState shows status running, driver none, awaitingDriver true with the answer in _resumePayloads, and a driver attaching later re-drives it to the end",
			kkResumeWithoutDriver, "A26.wire.kernel-authoritative", "I-WIRE-5"),
		check("kernel/driver/attach-modes", spec.Must, "execution.attach answers mode live for a run awaiting a driver and mode replay for a parked or finished execution",
			kkAttachModes, "I-WIRE-2", "I-WIRE-27"),
		check("kernel/driver/recover", spec.Must, "a crashed run (conformance.crash) is re-driven by execution.attach in mode recover: EXECUTION_RECOVERED is recorded, the step whose outcome the crash lost runs again with its next attempt, and the run completes (needs the conformance extension)",
			kkRecover, "S5.ingress.recovered-running-only", "S5.ingress.redrive-no-resumed", "I-WIRE-5", "I-WIRE-24", "I-WIRE-27"),
	}
}

func kkStart(ctx context.Context, c *Case) error {
	id := c.ExecID("start")
	var a carrier.Attached
	if err := c.Store.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "kit.start", "executionId": id, "input": map[string]any{"n": 1}}, &a); err != nil {
		return c.Failf(carrier.MethodStart, id, err, "a started execution")
	}
	if a.ExecutionID != id || a.Status != "running" || a.Driver == "" || a.Mode != "live" {
		return c.Failf(carrier.MethodStart, id, fmt.Sprintf("executionId %q status %q driver %q mode %q", a.ExecutionID, a.Status, a.Driver, a.Mode),
			fmt.Sprintf("executionId %q status \"running\" a driver token mode \"live\"", id))
	}
	log, err := logOf(ctx, c, id)
	if err != nil {
		return err
	}
	if len(log) != 1 || log[0].EventType != manifest.ExecutionStarted || !sameJSON(log[0].Payload, `{"flowId":"kit.start","input":{"n":1}}`) {
		return c.Failf("log", id, fmt.Sprintf("%d envelopes, first %s", len(log), firstOf(log)), `[EXECUTION_STARTED {"flowId":"kit.start","input":{"n":1}}]`)
	}
	st, err := stateOf(ctx, c, id)
	if err != nil {
		return err
	}
	if st.Status != "running" || st.Driver != "attached" || st.AwaitingDriver {
		return c.Failf(carrier.MethodGetState, id, fmt.Sprintf("status %q driver %q awaitingDriver %v", st.Status, st.Driver, st.AwaitingDriver), `status "running" driver "attached" awaitingDriver false`)
	}
	return nil
}

// firstOf describes a log's first envelope.
func firstOf(log []spi.Envelope) string {
	if len(log) == 0 {
		return "none"
	}
	return log[0].EventType + " " + string(log[0].Payload)
}

func kkStartExists(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "exists")
	if err != nil {
		return err
	}
	return appendsNothing(ctx, c, d.ExecutionID, "a second start", func() error {
		err := c.Store.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "kit.exists", "executionId": d.ExecutionID}, nil)
		return wantError(c, carrier.MethodStart, d.ExecutionID+" (exists)", err, carrier.CodeAlreadyExists, "exists")
	})
}

func kkStartBudget(ctx context.Context, c *Case) error {
	id := c.ExecID("budget")
	err := c.Store.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "kit.budget", "executionId": id, "budget": map[string]any{"tokens": -1}}, nil)
	if err := wantError(c, carrier.MethodStart, `budget {"tokens":-1}`, err, carrier.CodeInvalidParams, ""); err != nil {
		return err
	}
	var a carrier.Attached
	if err := c.Store.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "kit.budget", "executionId": id, "budget": map[string]any{"tokens": 3}}, &a); err != nil {
		return c.Failf(carrier.MethodStart, `budget {"tokens":3}`, err, "a started execution")
	}
	d := &carrier.Driver{C: c.Store, ExecutionID: id, Token: a.Driver}
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"spend","toolId":"meter"},"input":{"tokens":3}}`); err != nil {
		return err
	}
	args := `{"task":{"id":"over","toolId":"echo"},"input":1}`
	_, _, err = d.Syscall(ctx, "execute", json.RawMessage(args))
	return wantError(c, "syscall.execute", args+" (3 of its own 3 tokens spent)", err, carrier.CodeQuotaExceeded, "quota-exceeded")
}

func kkComplete(ctx context.Context, c *Case) error {
	for _, k := range []struct {
		name, status, event, recorded string
		params                        map[string]any
	}{
		{"output", "completed", manifest.ExecutionCompleted, `{"output":{"done":[1,2]}}`, map[string]any{"output": map[string]any{"done": []int{1, 2}}}},
		{"error", "failed", manifest.ExecutionFailed, `{"error":{"message":"gave up"}}`, map[string]any{"error": map[string]any{"message": "gave up"}}},
	} {
		d, err := startExec(ctx, c, "complete-"+k.name)
		if err != nil {
			return err
		}
		k.params["executionId"], k.params["driver"] = d.ExecutionID, d.Token
		var a carrier.Attached
		if err := c.Store.Call(ctx, carrier.MethodComplete, k.params, &a); err != nil || a.Status != k.status {
			return c.Failf(carrier.MethodComplete, k.name, show(err, "status "+a.Status), "status "+k.status)
		}
		log, err := logOf(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		last := log[len(log)-1]
		if last.EventType != k.event || !sameJSON(last.Payload, k.recorded) {
			return c.Failf("log", d.ExecutionID+" after complete with "+k.name, last.EventType+" "+string(last.Payload), k.event+" "+k.recorded)
		}
	}
	return nil
}

func kkCancelLive(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "cancel")
	if err != nil {
		return err
	}
	var a carrier.Attached
	if err := c.Store.Call(ctx, carrier.MethodCancel, map[string]any{"executionId": d.ExecutionID, "reason": "no longer needed"}, &a); err != nil || a.Status != "cancelled" {
		return c.Failf(carrier.MethodCancel, d.ExecutionID, show(err, "status "+a.Status), "status cancelled")
	}
	log, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	if last := log[len(log)-1]; last.EventType != manifest.ExecutionCancelled || !sameJSON(last.Payload, `{"reason":"no longer needed"}`) {
		return c.Failf("log", d.ExecutionID, last.EventType+" "+string(last.Payload), `EXECUTION_CANCELLED {"reason":"no longer needed"}`)
	}
	return appendsNothing(ctx, c, d.ExecutionID, "a call of the cancelled run's driver", func() error {
		_, _, err := d.Syscall(ctx, "execute", json.RawMessage(`{"task":{"id":"late","toolId":"echo"},"input":1}`))
		if _, ok := asCall(err); !ok {
			return c.Failf("syscall.execute", "by the driver of a cancelled run", show(err, "accepted"), "refused (the seat ended with the cancel)")
		}
		return nil
	})
}

func kkCancelParked(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "cancel-parked")
	if err != nil {
		return err
	}
	if err := park(ctx, c, d, "approve"); err != nil {
		return err
	}
	var a carrier.Attached
	if err := c.Store.Call(ctx, carrier.MethodCancel, map[string]any{"executionId": d.ExecutionID}, &a); err != nil || a.Status != "cancelled" {
		return c.Failf(carrier.MethodCancel, d.ExecutionID+" (parked)", show(err, "status "+a.Status), "status cancelled")
	}
	st, err := stateOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	if st.Status != "cancelled" {
		return c.Failf(carrier.MethodGetState, d.ExecutionID, st.Status, "cancelled")
	}
	return nil
}

func kkResumeWithoutDriver(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "no-driver")
	if err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"a","toolId":"echo"},"input":1}`); err != nil {
		return err
	}
	if err := park(ctx, c, d, "approve"); err != nil {
		return err
	}
	if err := c.Store.Call(ctx, carrier.MethodResume, map[string]any{"executionId": d.ExecutionID, "eventType": "approve", "payload": map[string]any{"ok": true}}, nil); err != nil {
		return c.Failf(carrier.MethodResume, "approve, no driver", err, "accepted")
	}
	st, err := stateOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	if st.Status != "running" || !st.AwaitingDriver || st.Driver != "none" {
		return c.Failf(carrier.MethodGetState, "after a resume with no driver", fmt.Sprintf("status %s driver %s awaitingDriver %v", st.Status, st.Driver, st.AwaitingDriver),
			"status running driver none awaitingDriver true")
	}
	var s struct {
		Variables struct {
			ResumePayloads json.RawMessage `json:"_resumePayloads"`
		} `json:"variables"`
	}
	if json.Unmarshal(st.State, &s) != nil || !sameJSON(s.Variables.ResumePayloads, `[{"ok":true}]`) {
		return c.Failf(carrier.MethodGetState, "variables._resumePayloads", string(s.Variables.ResumePayloads), `the recorded answer [{"ok":true}]`)
	}
	a, err := attach(ctx, c, d.ExecutionID, "")
	if err != nil {
		return err
	}
	d.Token = a.Driver
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"a","toolId":"echo"},"input":1}`); err != nil {
		return err
	}
	v, parked, err := d.Syscall(ctx, "suspend", json.RawMessage(`{"on":"approve"}`))
	if err != nil || parked || !sameJSON(v, `{"ok":true}`) {
		return c.Failf("syscall.suspend", "approve (re-driven)", fmt.Sprintf("value %s parked %v err %v", v, parked, err), `the recorded answer {"ok":true}`)
	}
	return complete(ctx, c, d, "done")
}

func kkAttachModes(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "modes")
	if err != nil {
		return err
	}
	if err := park(ctx, c, d, "g"); err != nil {
		return err
	}
	mode := func(what, want string) error {
		a, err := attach(ctx, c, d.ExecutionID, "")
		if err != nil {
			return err
		}
		if a.Mode != want {
			return c.Failf(carrier.MethodAttach, what, "mode "+a.Mode, "mode "+want)
		}
		d.Token = a.Driver
		return nil
	}
	if err := mode("a parked execution", "replay"); err != nil {
		return err
	}
	// the replay's seat ends where the log's park is
	if _, parked, err := d.Syscall(ctx, "suspend", json.RawMessage(`{"on":"g"}`)); err != nil || !parked {
		return c.Failf("syscall.suspend", "re-driven in a replay of the parked execution", show(err, "not parked"), "parked (the recorded park)")
	}
	if err := c.Store.Call(ctx, carrier.MethodResume, map[string]any{"executionId": d.ExecutionID, "eventType": "g", "payload": 1}, nil); err != nil {
		return c.Failf(carrier.MethodResume, "g, no driver", err, "accepted")
	}
	if err := mode("a run awaiting a driver", "live"); err != nil {
		return err
	}
	if _, _, err := d.Syscall(ctx, "suspend", json.RawMessage(`{"on":"g"}`)); err != nil {
		return c.Failf("syscall.suspend", "g (re-driven)", err, "the recorded answer")
	}
	if err := complete(ctx, c, d, 1); err != nil {
		return err
	}
	return mode("a finished execution", "replay")
}

func kkRecover(ctx context.Context, c *Case) error {
	if err := needMethods(ctx, c, carrier.MethodConformanceCrash); err != nil {
		return err
	}
	d, err := startExec(ctx, c, "recover")
	if err != nil {
		return err
	}
	// EXECUTION_STARTED is 0, STEP_STARTED a is 1: the crash takes STEP_COMPLETED a (2)
	if err := c.Store.Call(ctx, carrier.MethodConformanceCrash, map[string]any{"executionId": d.ExecutionID, "sequence": 2}, nil); err != nil {
		return c.Failf(carrier.MethodConformanceCrash, d.ExecutionID+" at 2", err, "armed")
	}
	args := `{"task":{"id":"a","toolId":"echo"},"input":"a"}`
	if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(args)); err == nil {
		return c.Failf("syscall.execute", args+" (crash armed at its STEP_COMPLETED)", "accepted", "an error answer: the run crashed")
	}
	a, err := attach(ctx, c, d.ExecutionID, "")
	if err != nil {
		return err
	}
	if a.Mode != "recover" {
		return c.Failf(carrier.MethodAttach, "a crashed execution", "mode "+a.Mode, "mode recover")
	}
	d.Token = a.Driver
	if _, err := syscall(ctx, c, d, "execute", args); err != nil {
		return err
	}
	if err := complete(ctx, c, d, "a"); err != nil {
		return err
	}
	log, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	var got []string
	for _, e := range log {
		got = append(got, entry(e.EventType, string(e.Payload)))
	}
	want := []string{
		entry(manifest.ExecutionStarted, `{"flowId":"kit.recover","input":"recover"}`),
		entry(manifest.StepStarted, `{"attempt":1,"input":"a","stepId":"a","toolId":"echo"}`),
		entry(manifest.ExecutionRecovered, `{}`),
		entry(manifest.StepStarted, `{"attempt":2,"input":"a","stepId":"a","toolId":"echo"}`),
		entry(manifest.StepCompleted, `{"output":"a","stepId":"a"}`),
		entry(manifest.ExecutionCompleted, `{"output":"a"}`),
	}
	return c.Diff("log", d.ExecutionID+" (crashed at STEP_COMPLETED, recovered)", want, got)
}
