// Package realfleet runs the deploy simulation's fleet for real: worker processes on PostgreSQL
// (`loom-conform worker`), sharing one database through the PostgreSQL EventStore and the
// PostgreSQL ExecutionDispatcher (SKIP LOCKED queue, heartbeat leases), killed with SIGKILL and
// paused with SIGSTOP at seeded moments by `loom-conform deploysim --real`, which then checks the
// simulation's invariants on the logs they wrote. This is how a fleet outgrows one machine:
// workers on many hosts against one PostgreSQL.
package realfleet
