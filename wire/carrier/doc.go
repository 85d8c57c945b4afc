// Package carrier is the wire-level kernel ABI of ADR 0026: a JSON-RPC 2.0 projection of the
// kernel's syscall table, served over HTTP, through which a client in any language drives
// executions of the reference kernel (docs/wire.md).
//
// The core is pure: Carrier.HandleRPC takes one decoded request and returns one response; the
// HTTP handler (ServeHTTP) only frames bytes around it, and the channel syscalls (stream, ui)
// have a streaming form over newline-delimited JSON (HandleStream). Methods are derived from
// manifest.Syscalls, never listed by hand: DeriveMethods(table) turns a syscall table into the
// method table, so a new syscall is a new method.
//
// Who re-drives (ADR 0026 A3): the kernel folds and is authoritative; the client holds the flow
// logic and re-drives it from the top after every resume, every syscall the log answers being
// served from the log. One driver at a time holds an execution (a driver token); a second is
// fenced. A resume with no connected driver is recorded and parks the run, visible in
// execution.getState, until a driver attaches.
//
//	c, _ := carrier.New(rt, carrier.Options{})
//	url, stop, _ := bridge.Start("127.0.0.1:0", c)
//	defer stop()
//
// Effects run kernel-side under the rings (Rings: authorize, meter, validate, egress), exactly
// as for an in-process flow: a wire client gains no bypass. NewProfile serves the conformance
// profile `certify kernel` expects, with the test-only conformance extension (Conformance:
// conformance.clock and conformance.crash); the kit that certifies a kernel, and the broken
// kernels built from this carrier's Hooks, are kits/kernelkit's.
package carrier
