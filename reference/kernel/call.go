package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
)

// Call makes a syscall by name with JSON arguments — the shape a wire client uses (ADR 0026).
// A name that is not in manifest.Syscalls() is an *UnknownSyscallError and a syscall whose feature
// flag is off a *SyscallDisabledError; nothing is appended for either. Arguments:
//
//	execute       {"task": {"id", "kind"?, "toolId"}, "input"?}
//	run           {"stepId", "toolId", "input"?}
//	decide        {"id", "choice"}              (the client decided; the kernel records and serves it)
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
			ID     string `json:"id"`
			Kind   string `json:"kind"`
			ToolID string `json:"toolId"`
		} `json:"task"`
		StepID         string          `json:"stepId"`
		ToolID         string          `json:"toolId"`
		Input          json.RawMessage `json:"input"`
		ID             string          `json:"id"`
		Choice         json.RawMessage `json:"choice"`
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
		return c.Execute(Task{ID: a.Task.ID, Kind: a.Task.Kind, ToolID: a.Task.ToolID}, input)
	case "run":
		return c.execute("run", Task{ID: a.StepID, ToolID: a.ToolID}, input)
	case "decide":
		if a.Choice == nil {
			return nil, &SyscallError{Syscall: name, Reason: "missing choice"}
		}
		return c.Decide(a.ID, func(context.Context) (any, error) { return a.Choice, nil })
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
