package kernel

import (
	"context"
	"encoding/json"
)

// Flow is flow code: a deterministic Go function of its input and the syscalls it makes through
// ctx. Resume re-runs it from the top; every syscall is served from the log where the log holds
// its answer (spec §3). A flow must make its non-determinism through syscalls only.
type Flow func(ctx *Context, input json.RawMessage) (any, error)

// FlowDef registers a flow with a Runtime.
type FlowDef struct {
	// ID is recorded as EXECUTION_STARTED flowId and as every envelope's workflowId.
	ID string
	Fn Flow
	// ResumeSchemas is the flow's optional shape gate (spec §5, ADR 0077): gate name to parser.
	ResumeSchemas map[string]ResumeSchema
	// CodeHash, when set, is recorded as EXECUTION_STARTED codeHash (1.23.0).
	CodeHash string
}

// Effect is an effect: the only place side effects happen. It runs live at most once per
// recorded completion (a completed step is served from the log, spec §2).
type Effect func(ec *EffectContext, input json.RawMessage) (any, error)

// EffectDef is an effect registered at the effect boundary under a toolId.
type EffectDef struct {
	Fn Effect
	// Errors declares the effect's typed failure channels (spec §4.1): channel to payload
	// validator. A step's own map wins over this one.
	Errors map[string]PayloadSchema
	// AtMostOnce marks an effect that must not be re-run blindly: when a crash leaves its outcome
	// unknown, the execution parks in doubt for a verdict instead (K9.3).
	AtMostOnce bool
}

// PayloadSchema validates a typed failure payload (a JSON text); nil error means valid.
type PayloadSchema func(payload json.RawMessage) error

// AnyPayload accepts every payload.
func AnyPayload(json.RawMessage) error { return nil }

// Decider makes a non-deterministic choice; its result is recorded as DECISION_RECORDED and served
// from the log on replay, never recomputed (P9).
type Decider func(ctx context.Context) (any, error)
