// Package clients holds the acceptance clients of the wire kernel ABI (ADR 0026): kernel.sh, a
// POSIX shell client using only curl and jq, and kernel.py, a Python client using only the
// standard library. Both drive flow scripts (loom-flowscript/1, docs/goldens.md) with their
// drivers (loom-driver/1) — start, the script's syscalls, resume on a park (re-driving from the
// top), complete, then replay — against a kernel URL and print the folded state and log the
// kernel holds. The tests here run both against the reference carrier, on the wire's own scripts
// (scripts/) and on the golden corpus's, and hold the result byte-identical to the same scripts run
// in process.
//
// Scripts returns the wire's own scripts; Inexpressible says which scripts the wire cannot run
// and why.
package clients
