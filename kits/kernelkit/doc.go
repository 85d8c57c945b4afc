// Package kernelkit is the conformance kit of a kernel served over the wire kernel ABI
// (docs/wire.md): the checks `certify kernel` runs, one per obligation, each naming the clauses it
// enforces, and the broken kernels that prove each check can fail.
//
// The checks are grouped by family, one file each: the handshake and method table
// (handshake.go), each syscall's arguments and refusals (syscalls.go), the rings (rings.go), the
// driver contract — start, attach, re-drive, complete, cancel (driver.go) — fencing of every
// driver method (fencing.go), the ingress gate over the wire (ingress.go), the code of each
// refusal class (errors.go), bad input (badinput.go), reconnect (reconnect.go), read-only replay
// (replay.go), terminal executions (terminal.go), the streaming form (stream.go), the
// conformance profile's per-execution state (profile.go), structural refusals (structure.go),
// Wave 2 (wave2.go), and every flow script and golden the wire can drive, each its own check
// (scripts.go). A check that drives a flow script compares the kernel's log and folded state, as
// values, with the in-process run of the same script on the reference kernel (reference.go): up
// to our choices, in a required assertion (freedoms.go aligns them), and exactly, in a recommended
// one citing those choices; a difference names the first divergent envelope and the flow-script
// statement that produced it. A check that exists for a choice asks, required, whether the
// kernel's behaviour is one of the legal options the spec leaves and, recommended, whether it is
// ours (kitCheck).
//
//	results, err := kits.Run(ctx, kernelkit.Kit(), factory, kits.Options{SpiVersion: "1.0.0"})
//
// Broken kernels (broken.go) are the reference kernel behind the carrier with one defect each,
// served by `serve-kernel --broken NAME`; Mutants registers them with the clauses they violate.
package kernelkit
