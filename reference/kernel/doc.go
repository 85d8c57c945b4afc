// Package kernel will hold the reference runtime over any spi.EventStore: syscalls and replay,
// emit serving (spec §3), the resume ingress gate (spec §5), typed failures (spec §4.1) and timers.
// Nothing here is implemented yet.
package kernel
