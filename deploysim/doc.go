// Package deploysim is a seeded, deterministic fleet simulation (spec §3, §6, §10): a fleet of
// reference kernels — each with its own event-schema profile and flow-code version — takes
// executions from an ExecutionDispatcher and drives them over shared stores, while one seeded
// source draws scheduling, virtual delays, crashes, pauses and store faults. One (scenario, seed,
// workers) triple reproduces the whole run, so every failure carries the one command that
// re-runs it.
//
// After every run the invariants (invariants.go) are checked, each named with its clause ids: no
// acknowledged event lost or duplicated, dense sequences, at-most-once effects run at most once,
// completed effects never re-run, flow-level emits appended as the serving rule says, snapshot
// equivalence for every k and every reader profile, zombies fenced, no append without a lease,
// one owner per execution, every execution ending visibly, and final states equal to a
// single-worker run of the same inputs (with documented exceptions).
//
//	res := deploysim.Run(deploysim.Config{Scenario: "crash", Seed: 42, Workers: 3})
//	for _, v := range res.Violations {
//		fmt.Println(v) // names the invariant, its clauses, the execution, and res.Repro
//	}
//
// Broken fleets (mutants of kind "fleet", mutants.go) prove every invariant can fail.
package deploysim
