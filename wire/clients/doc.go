// Package clients holds the acceptance clients of the wire kernel ABI (ADR 0026): kernel.sh, a
// POSIX shell client using only curl and jq, and kernel.py, a Python client using only the
// standard library. Both drive the fixed flow set in flows.json — start, suspend, resume
// (re-driving from the top), complete, then replay — against a kernel URL and print the folded
// state and log the kernel holds. The tests here run both against the reference carrier and hold
// the result byte-identical to the same flows run in process.
//
// Flows returns the flow set for Go callers (the in-process run, `certify kernel`).
package clients
