package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"

	"github.com/loom-kernel/loom-conform/manifest"
)

// EffectContext is what an effect sees: its step, its context (cancelled at its timeout or when
// the run is abandoned), resource metering and EffectContext.emit. It never panics: a run that can
// no longer write returns the error.
type EffectContext struct {
	r       *run
	ctx     context.Context
	stepID  string
	attempt int
}

// Context returns the effect's context.
func (ec *EffectContext) Context() context.Context { return ec.ctx }

// ExecutionID returns the execution the effect runs for.
func (ec *EffectContext) ExecutionID() string { return ec.r.execID }

// StepID returns the step the effect runs for.
func (ec *EffectContext) StepID() string { return ec.stepID }

// Attempt returns the attempt number (1 for the first run).
func (ec *EffectContext) Attempt() int { return ec.attempt }

// Usage is one metering of resources (spec §8). A nil dimension is absent: an effect reports only
// what it can measure (no false zeros).
type Usage struct {
	Tokens, CostUSD, Ms, MemBytes, WallMs, NetBytes *float64
	Custom                                          map[string]float64
}

// Meter records RESOURCE_METERED for the effect's step and adds it to the execution's totals.
func (ec *EffectContext) Meter(u Usage) error {
	kv := []any{"stepId", ec.stepID}
	dims := map[string]*float64{"tokens": u.Tokens, "costUsd": u.CostUSD, "ms": u.Ms, "memBytes": u.MemBytes, "wallMs": u.WallMs, "netBytes": u.NetBytes}
	measured := false
	for _, name := range fold.ResourceDimensions() {
		if v := dims[name]; v != nil {
			if !validMeter(*v) {
				return &SyscallError{Syscall: "meter", Reason: fmt.Sprintf("%s = %v is not a finite, non-negative measurement under %g", name, *v, MeterCeiling)}
			}
			kv = append(kv, name, *v)
			if name == "tokens" && ec.r.rt.cfg.Hooks.MeterDimensionNames {
				kv[len(kv)-2] = "tokenCount"
			}
			measured = true
		} else if ec.r.rt.cfg.Hooks.MeterZeroFill {
			kv = append(kv, name, 0)
		}
	}
	if len(u.Custom) > 0 {
		for k, v := range u.Custom {
			if !validMeter(v) || isReserved(k) || k == "__proto__" {
				return &SyscallError{Syscall: "meter", Reason: fmt.Sprintf("custom dimension %q = %v is not valid", k, v)}
			}
		}
		kv = append(kv, "custom", maps.Clone(u.Custom))
		measured = true
	}
	if !measured {
		return &SyscallError{Syscall: "meter", Reason: "no dimension measured"}
	}
	r := ec.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rt.cfg.Hooks.MeterNotLogged {
		kv = nil // counted below, never appended
	} else if err := r.appendLocked(newEvent{eventType: manifest.ResourceMetered, payload: obj(kv...)}); err != nil {
		return err
	}
	for _, name := range fold.ResourceDimensions() {
		if v := dims[name]; v != nil {
			r.resources[name] += *v
		}
	}
	return nil
}

// Resources returns the execution's metered totals so far (the _resources accumulator).
func (ec *EffectContext) Resources() map[string]float64 {
	ec.r.mu.Lock()
	defer ec.r.mu.Unlock()
	return maps.Clone(ec.r.resources)
}

// Emit is EffectContext.emit: it appends an application event from inside an effect. It is
// validated as every userspace emit (spec §5: kernel types refused except the seven; an effect's
// DECISION_RECORDED id is rewritten into its step's namespace) and never stamped (spec §3).
func (ec *EffectContext) Emit(eventType string, payload any) error {
	r := ec.r
	r.mu.Lock()
	defer r.mu.Unlock()
	chk, err := r.checkUserspace(userspace.Emit{Source: userspace.SourceEffect, EventType: eventType, Payload: payload,
		StepID: ec.stepID, Attempt: ec.attempt})
	if err != nil {
		return err
	}
	raw := chk.Payload
	if chk.NoJSONForm {
		raw = json.RawMessage("null")
	}
	if err := r.appendLocked(newEvent{eventType: eventType, payload: raw}); err != nil {
		return err
	}
	r.noteUserspaceDecision(chk)
	r.noteMetered(chk)
	return nil
}

// Raw returns the JSON text of v (a helper for effects that build payloads).
func Raw(v any) (json.RawMessage, error) { return rawJSON(v) }
