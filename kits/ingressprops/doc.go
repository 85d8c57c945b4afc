// Package ingressprops is the property kit of the resume ingress gate (spec §5): random execution
// states, built as realistic logs and folded, crossed with random resume attempts — every event
// type including the kernel ones, TIMER_FIRED with and without a recorded wakeAt, null answers
// after a parked failure, EXECUTION_RECOVERED and resumeAs onto every status. For each case the
// gate's verdict must equal an independent model written straight from §5 (model.go, which reads
// the scenario, never the log), a refusal must come without a plan, and an accepted plan, once
// appended and folded again, must move the state as the spec says.
//
// The same shape covers the userspace emit rules (emits*.go): random emits through every door
// (flow, effect, relay) over every event type, with payload variants whose validity the generator
// knows, judged by an independent model (EmitProperty, SweepEmits).
//
// Usage, from a test:
//
//	func TestGate(t *testing.T) {
//		rapid.Check(t, ingressprops.Property(ingressprops.Reference()))
//	}
//
// rapid prints the seed and the shrunk case on failure (-rapid.seed=N reproduces it; the case
// count is rapid's default, -rapid.checks=N raises it). Sweep(gate, n) checks the deterministic
// example stream without a *testing.T — the kit uses it to prove that deliberately broken gates are
// rejected.
package ingressprops
