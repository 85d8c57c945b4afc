package carrier

import (
	"context"
	"encoding/json"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// resumeAs answers execution.resumeAs (I-WIRE-15): the execution is migrated onto flowId, whose
// code is the driver like every wire flow's, and re-run under the rules of spec §5 resumeAs (onto
// a parked execution every resume rule, with eventType and payload the gate's answer). input, when
// present, is the migrated input: the result of the caller's state transform (K11.5), recorded
// as EXECUTION_MIGRATED.migratedInput. A transform is code, so it runs on the caller's side of
// the wire; a transform that fails is never sent, and nothing is appended, as in process. With
// attach the caller becomes the driver and re-drives the target flow from the top.
func (c *Carrier) resumeAs(ctx context.Context, raw json.RawMessage) (any, *bridge.RPCError) {
	var p struct {
		ExecutionID string          `json:"executionId"`
		FlowID      string          `json:"flowId"`
		EventType   string          `json:"eventType"`
		Payload     json.RawMessage `json:"payload"`
		Input       json.RawMessage `json:"input"`
		Attach      bool            `json:"attach"`
	}
	if err := decodeStrict(raw, &p); err != nil {
		return nil, invalid(MethodResumeAs, err)
	}
	if p.ExecutionID == "" || p.FlowID == "" {
		return nil, required(MethodResumeAs, "executionId", p.ExecutionID, "flowId", p.FlowID)
	}
	if _, e := c.flowOf(ctx, p.ExecutionID); e != nil {
		return nil, e
	}
	if e := c.slipResumeAs(ctx, p.ExecutionID); e != nil {
		return nil, e
	}
	if c.opts.Hooks.ResumeAsKernelTypes && manifest.IsKernelEventType(p.EventType) && p.EventType != manifest.TimerFired &&
		c.forge(p.ExecutionID, forged{p.EventType, payloadOr(p.Payload)}, forged{manifest.ExecutionResumed, payloadOr(p.Payload)}) {
		return startResult{ExecutionID: p.ExecutionID, Status: fold.StatusRunning, AwaitingDriver: true}, nil
	}
	if err := c.ensureFlow(p.FlowID); err != nil {
		return nil, rpcErr(CodeInvalidParams, "params", err.Error(), "field", "flowId")
	}
	req := kernel.ResumeAsRequest{FlowID: p.FlowID, EventType: p.EventType, Payload: p.Payload}
	if p.Input != nil && !c.opts.Hooks.DropMigratedInput {
		migrated := p.Input
		req.Transform = func(json.RawMessage) (json.RawMessage, error) { return migrated, nil }
	}
	s, e := c.newSession(p.ExecutionID, p.Attach, "live")
	if e != nil {
		return nil, e
	}
	return c.launch(s, func(ctx context.Context) (kernel.Result, error) {
		return c.rt.ResumeAs(ctx, p.ExecutionID, req)
	})
}
