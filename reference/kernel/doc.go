// Package kernel is the reference runtime of the Loom kernel over any spi.EventStore (spec §2,
// §3, §4.1, §5, §8; DESIGN §5).
//
// Flows are Go functions. Resume is re-run: every syscall first looks in the log, so a completed
// step is served and its effect never runs again, a recorded decision is served and its decider
// is not called, an answered gate passes through with its recorded payload, and flow-level emits
// follow the serving rule of spec §3 (ADR 0102). Time, ids and randomness come from Config.
//
//	rt, _ := kernel.New(kernel.Config{Store: memory.NewEventStore()})
//	rt.Register(kernel.FlowDef{ID: "greet", Fn: func(c *kernel.Context, in json.RawMessage) (any, error) {
//		name, err := c.Run("lookup", lookupEffect, in)
//		if err != nil {
//			return nil, err
//		}
//		_ = c.Emit("progress", map[string]any{"looked": true})
//		answer, err := c.Suspend(kernel.SuspendConfig{On: "approve"})
//		if err != nil {
//			return nil, err
//		}
//		return map[string]any{"name": name, "answer": answer}, nil
//	}})
//	res, _ := rt.Start(ctx, "greet", "exec-1", "ada")                       // parks on "approve"
//	res, _ = rt.Resume(ctx, "exec-1", "approve", json.RawMessage(`{"ok":true}`)) // completes
//
// Resume, ResumeAs and Recover go through the ingress gate (package ingress) and append nothing on
// a refusal. Wave 2 syscalls (continueAsNew, receive, select) need their Features flag; Deliver
// answers a receive/select. FireDueTimers raises TIMER_FIRED from a TimerStore, SuspensionSafety
// reports timed parks nothing will wake, Snapshot writes the folded state out of band, Cancel ends
// an execution, and Drive replays a parked or finished execution read-only. Context.Call is the
// syscall surface by name, for wire clients. The emit rule of spec §3 is the pure function
// EmitRule; Config.Hooks holds deliberately broken variants the property kits must reject.
package kernel
