// Package userspace holds the userspace emit rules of spec §5 as pure checks: which event types
// flow code (ctx.emit, ctx.stream, ctx.ui), an effect (EffectContext.emit) and an isolated tool's
// relay may append, and how the seven kernel types they may still carry are validated.
//
// The runtime calls Check before appending a userspace emit and appends exactly the returned
// payload bytes (the payload is copied to plain data first, so the id that is checked is the id
// that is folded):
//
//	c, err := userspace.Check(userspace.Emit{
//		Source: userspace.SourceEffect, StepID: "charge", Attempt: 1,
//		EventType: "DECISION_RECORDED", Payload: map[string]any{"id": "route", "choice": "fast"},
//	}, state.Variables.Decisions)
//	if err != nil {
//		return err // *EmitRefusedError: append nothing
//	}
//	// c.Payload is {"choice":"fast","id":"effect:charge#1:route"}; c.DecisionID the folded id.
//
// Rules: every kernel event type is refused except RESOURCE_METERED, QUOTA_EXCEEDED,
// SAFETY_BLOCKED, EGRESS_DENIED, EFFECT_DENIED, OUTCOME_RECORDED and DECISION_RECORDED
// (manifest.UserspaceEmittable); a relay forwards application types only. RESOURCE_METERED fields
// are finite, non-negative and at most MaxMetered; QUOTA_EXCEEDED.reason is a non-empty string of
// at most MaxQuotaReason bytes. An effect's DECISION_RECORDED id is rewritten to
// effect:<stepId>#<attempt>:<id>; ids beginning __loom_ are refused; no userspace record may change
// an already-recorded choice. Reasons are the Reason* constants.
package userspace
