// Package flowscript is the one representation of "a flow as data" (spec §2 syscalls, §10 golden
// replay): a versioned JSON program of syscall statements with literal arguments, names bound to
// earlier results and nested branches for parallel, plus the driver script that says what the
// outside world does to an execution (start, resume, resumeAs, recover, verdict, timers, crash,
// cancel, snapshot). docs/goldens.md documents both formats; flowscript.schema.json and
// driver.schema.json beside this file are their JSON Schemas.
//
// The package has three layers:
//
//   - Decode / DecodeDriver: strict decoding with errors naming the statement path and field
//     (*Error), and validation (known syscalls and fakes, names bound before use, feature flags).
//   - Machine / Next: a pure step function. Given a scope (statements, bound names) and the answers
//     to the syscalls made so far it returns the next Action: a syscall to make (its name and its
//     JSON arguments, in the shape kernel.Context.Call takes), a parallel to fork, or the end. A
//     client that re-drives flow logic remotely needs only this.
//   - Flow / Def: the in-process interpreter that turns a script into a reference/kernel flow
//     (Options.Observe is told what the flow code sees: a property kit's trace), and Effects: the
//     named deterministic effect fakes (echo, fail-typed, fail-untyped, slow, counter,
//     emit-from-effect, ...) that every implementation of the format provides.
//
// Format 2 (loom-flowscript/2) adds two things to format 1, which is still read: an emit, stream
// or ui payload may hold {"$float": "NaN"} (a number JSON cannot hold, nonjson.go), and every fake
// waits input.latencyUs microseconds before it behaves (fakes.go).
//
// Example:
//
//	s, err := flowscript.Decode("flow.json", data)
//	rt, _ := kernel.New(kernel.Config{Store: store, Effects: flowscript.Effects()})
//	_ = rt.Register(flowscript.Def(s, flowscript.Options{SerialBranches: true}))
package flowscript
