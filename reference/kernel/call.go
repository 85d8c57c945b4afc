package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
)

// Call makes a syscall by name with JSON arguments — the shape a wire client uses (ADR 0026).
// A name that is not in manifest.Syscalls() is an *UnknownSyscallError and a syscall whose feature
// flag is off a *SyscallDisabledError; nothing is appended for either. Arguments:
//
//	execute       {"task": {"id", "kind"?, "toolId", "timeoutMs"?, "atMostOnce"?, "errors"?: [channel]}, "input"?}
//	run           {"stepId", "toolId", "input"?}
//	decide        {"id", "choice" | "error": {"message"}, "context"?, "policy"?}
//	              (the client decided, or its decider failed; the kernel records and serves a choice)
//	suspend       {"on", "timeoutMs"?, "wakeAt"?, "correlationKey"?}
//	sleep         {"ms"}
//	sleepUntil    {"wakeAt"}
//	emit/stream/ui {"eventType", "payload"}
//	continueAsNew {"input"}
//	receive       {"topic"}
//	select        {"topics": [...]}
//
// parallel needs Go branches and is refused here.
func (c *Context) Call(name string, args json.RawMessage) (json.RawMessage, error) {
	s, ok := manifest.LookupSyscall(name)
	if !ok {
		return nil, &UnknownSyscallError{Name: name}
	}
	if !c.r.rt.cfg.Features.enabled(s.Feature) && !c.r.rt.cfg.Hooks.Wave2Unflagged {
		return nil, &SyscallDisabledError{Name: name, Feature: s.Feature}
	}
	var a struct {
		Task *struct {
			ID         string   `json:"id"`
			Kind       string   `json:"kind"`
			ToolID     string   `json:"toolId"`
			TimeoutMs  int64    `json:"timeoutMs"`
			AtMostOnce bool     `json:"atMostOnce"`
			Errors     []string `json:"errors"`
		} `json:"task"`
		StepID  string          `json:"stepId"`
		ToolID  string          `json:"toolId"`
		Input   json.RawMessage `json:"input"`
		ID      string          `json:"id"`
		Choice  json.RawMessage `json:"choice"`
		Context json.RawMessage `json:"context"`
		Policy  json.RawMessage `json:"policy"`
		Error   *struct {
			Message string `json:"message"`
		} `json:"error"`
		On             string          `json:"on"`
		TimeoutMs      int64           `json:"timeoutMs"`
		WakeAt         int64           `json:"wakeAt"`
		CorrelationKey string          `json:"correlationKey"`
		Ms             int64           `json:"ms"`
		EventType      string          `json:"eventType"`
		Payload        json.RawMessage `json:"payload"`
		Topic          string          `json:"topic"`
		Topics         []string        `json:"topics"`
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, &SyscallError{Syscall: name, Reason: "arguments: " + err.Error()}
	}
	input := any(a.Input)
	if a.Input == nil {
		input = nil
	}
	switch name {
	case "execute":
		if a.Task == nil {
			return nil, &SyscallError{Syscall: name, Reason: "missing task"}
		}
		return c.Execute(callTask(a.Task.ID, a.Task.Kind, a.Task.ToolID, a.Task.TimeoutMs, a.Task.AtMostOnce, a.Task.Errors), input)
	case "run":
		return c.execute("run", Task{ID: a.StepID, ToolID: a.ToolID}, input)
	case "decide":
		var opts []DecideOption
		if a.Context != nil {
			opts = append(opts, WithContext(a.Context))
		}
		if a.Policy != nil {
			opts = append(opts, WithPolicy(a.Policy))
		}
		if a.Error != nil { // the caller's decider failed: nothing is recorded, as for any failing decider
			msg := a.Error.Message
			return c.Decide(a.ID, func(context.Context) (any, error) { return nil, errors.New(msg) }, opts...)
		}
		if a.Choice == nil {
			return nil, &SyscallError{Syscall: name, Reason: "missing choice"}
		}
		return c.Decide(a.ID, func(context.Context) (any, error) { return a.Choice, nil }, opts...)
	case "suspend":
		return c.Suspend(SuspendConfig{On: a.On, Timeout: time.Duration(a.TimeoutMs) * time.Millisecond, WakeAt: a.WakeAt, CorrelationKey: a.CorrelationKey})
	case "sleep":
		return nil, c.Sleep(time.Duration(a.Ms) * time.Millisecond)
	case "sleepUntil":
		return nil, c.SleepUntil(a.WakeAt)
	case "emit", "stream", "ui":
		var p any = a.Payload
		if a.Payload == nil {
			p = nil
		}
		return nil, c.emit(name, a.EventType, p)
	case "continueAsNew":
		return nil, c.ContinueAsNew(input)
	case "receive":
		return c.Receive(a.Topic)
	case "select":
		i, msg, err := c.Select(a.Topics...)
		if err != nil {
			return nil, err
		}
		return obj("index", i, "message", msg), nil
	case "parallel":
		return nil, &SyscallError{Syscall: name, Reason: "parallel takes Go branches; use Context.Parallel"}
	}
	return nil, fmt.Errorf("kernel: syscall %q is in the table but has no dispatcher", name)
}

// callTask is the Task an execute call's arguments describe: a step-level typed-failure map lists
// channels only (their payloads are not shape-checked: a schema does not cross Call). A map given
// empty ("errors": []) is a declared map with no channel, which replaces the effect's (I-KERNEL-12,
// "even empty"); only an absent one leaves the effect's.
func callTask(id, kind, toolID string, timeoutMs int64, atMostOnce bool, errs []string) Task {
	t := Task{ID: id, Kind: kind, ToolID: toolID, AtMostOnce: atMostOnce, Timeout: time.Duration(timeoutMs) * time.Millisecond}
	if errs != nil {
		t.Errors = map[string]PayloadSchema{}
		for _, ch := range errs {
			t.Errors[ch] = AnyPayload
		}
	}
	return t
}
