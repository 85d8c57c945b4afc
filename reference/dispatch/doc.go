// Package dispatch holds the reference ExecutionDispatcher implementations (spec §6, §7):
// memory (deterministic, with an injected clock, for tests and deploy simulation) and postgres (a
// work queue with FOR UPDATE SKIP LOCKED and heartbeat leases, shared by workers on many hosts).
// Both pass the ExecutionDispatcher kit (kits.ExecutionDispatcher); docs/spi.md states the
// semantics.
package dispatch
