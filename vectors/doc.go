// Package vectors holds the language-neutral fold vectors (ADR 0026 T2.3, spec §3/§4) and their
// runner. A vector is one JSON file: a stable id, a one-line reason, the clause ids it enforces,
// and either a fold input (profile, optional snapshot, events) with the expected canonical state
// or error kind, a canonical-JSON input with its canonical text, or emit-digest inputs with the
// digest. docs/vectors.md is the format and protocol reference for implementers in any language.
//
// The corpus lives in vectors/corpus (hand-written, generated with go generate, and saved
// property counterexamples) and is built into the package. The runner judges each vector against
// a Folder: the reference fold in process, or a foreign fold driven as a subprocess over a
// line-delimited JSON protocol (Process), where a vector without an answer gets the verdict
// unknown and the process is restarted.
//
// Usage:
//
//	c, err := vectors.Embedded()            // or vectors.LoadDir("path/to/vectors")
//	if err != nil { ... }                   // malformed file, duplicate id: names the file(s)
//	p, err := vectors.NewProcess([]string{"node", "myfold.js"}, "")
//	if err != nil { ... }
//	defer p.Close()
//	rep := vectors.Run(ctx, c, p, vectors.Config{Timeout: 5 * time.Second})
//	rep.Render(os.Stdout)                   // table, failures in the failure grammar
//	if !rep.OK() { ... }
//
// The CLI verb is `loom-conform vectors [DIR] [--exec 'CMD ARGS']`; `loom-conform vectors
// --serve` is the reference fold behind the protocol.
package vectors

//go:generate go run ./internal/gen -out corpus/generated
