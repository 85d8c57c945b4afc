// Package ingress is the resume ingress gate of spec §5 as pure decision logic: which event may be
// delivered to an execution in which state, and exactly what gets appended when it is.
//
// The runtime folds the execution's log, scans the same envelopes for the facts the fold does not
// keep, and asks the gate:
//
//	st, err := fold.Fold(fold.Current(), nil, events)
//	facts, err := ingress.FactsFor(fold.Current(), events) // the profile the state was folded with
//	plan, err := ingress.Evaluate(ctx, st, facts, ingress.Request{
//		ExecutionID: id,
//		EventType:   "approve",
//		Payload:     json.RawMessage(`{"ok":true}`),
//	}, ingress.Options{Authenticator: auth, ResumeSchemas: flow.ResumeSchemas})
//	if err != nil {
//		return err // *ResumeRefusedError, *ResumePayloadValidationError: append NOTHING
//	}
//	envs := plan.Envelopes(workflowID, id, st.Sequence, now, func(int) string { return newID() })
//	// append envs as one batch (conditional on st.Sequence), then re-run the flow.
//
// # Requests
//
//   - resume: Request{EventType, Payload}. Accepted only at a park on that gate (or TIMER_FIRED at a
//     park that recorded a wakeAt). Plan: [APPROVAL_GRANTED], the delivered event with the answer,
//     EXECUTION_RESUMED with the answer (the PARSED value when a resumeSchemas entry ran). Kind
//     KindAnswer; Answers is true: exactly one _resumePayloads entry is added.
//   - verdict: at an in-doubt park (fold.GateInDoubt) the only accepted resume is VerdictRequest(…)
//     for the step and attempt of the EFFECT_INDOUBT fact. Plan: [APPROVAL_GRANTED], kernel
//     DECISION_RECORDED {id: "__loom_indoubt:<step>#<attempt>", choice}, null EXECUTION_RESUMED.
//   - divergence gate (fold.GateDiverged): released by a null resume of that gate; null
//     EXECUTION_RESUMED, no entry.
//   - recover: Request{EventType: "EXECUTION_RECOVERED"} on a running or pending execution.
//     Plan: [APPROVAL_GRANTED], EXECUTION_RECOVERED {by?}. No EXECUTION_RESUMED.
//   - resumeAs: Request{As: &ResumeAs{…}, EventType?, Payload?}. Onto a parked execution every rule
//     above applies, with the TARGET flow's ResumeSchemas, and EXECUTION_MIGRATED follows the
//     approval. Onto a crashed or pending execution: EXECUTION_MIGRATED and the optional event;
//     onto a terminal one also a null EXECUTION_RESUMED (re-open, status only). A failing
//     Transform refuses.
//
// Kernel-written envelopes (APPROVAL_GRANTED, EXECUTION_MIGRATED, EXECUTION_RECOVERED, the kernel
// DECISION_RECORDED) carry metadata {"kernel":true}; the delivered event and EXECUTION_RESUMED
// carry none.
//
// # Order and refusals
//
// Authenticator, then authorizer, then the ingress rules (kernel namespace; EXECUTION_RECOVERED
// status; terminal; not-suspended; in-doubt verdict; gate name or timer wakeAt; divergence gate;
// null answer after a parked failure; ambiguous legacy answers and discardLegacyAnswers), then the
// shape gate. Every refusal is an error and comes with no plan. Reasons are the Reason* constants.
// A gate-mismatch refusal names the gate (ResumeRefusedError.Gate) only when an authenticator
// accepted the caller.
//
// # Facts
//
// FactsFor(profile, events) scans the same envelopes the state was folded from, from sequence 0
// and as the same fold profile (FactsFrom = FactsFor(fold.Current(), …)): a runtime that folds as
// an older profile must scan as that profile too, or the facts will not match the state. The
// facts are the EFFECT_INDOUBT facts, the flow hash, and the history of parks and answers (which
// entry answered which park, which steps are human); the fold keeps none of these. Evaluate refuses facts whose sequence,
// status or entry count differ from the state's (an *InputError, never a plan). FactsFrom decodes
// only the payloads it tracks, so it costs a fraction of a fold (BenchmarkFactsVsFold).
// A compacted log (spec §7) is scanned with FactsAfterSnapshot(profile, snapshotState, tail): the
// snapshot's state summarizes the history it covers (docs/interpretations.md I-LIFECYCLE-11).
//
// # Legacy logs
//
// LegacyEntries lists _resumePayloads entries that answered no suspend point (logs written before
// the gate) and whether each is spent, for the runtime's warning. AmbiguousSteps reports open human
// steps whose answer cannot be attributed.
//
// Interpretations of spec §5 made here are registered as I-KERNEL-50 and up (spec/interp_kernel.go).
package ingress
