package dispatchers

import (
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// Broken is one broken dispatcher with the clauses it violates.
type Broken struct {
	broken.Store[spi.ExecutionDispatcher]
	Clauses []string
}

func mk(name, defect, catch string, clauses []string, h memory.Hooks) Broken {
	return Broken{Store: broken.Store[spi.ExecutionDispatcher]{Name: name, Defect: defect, Catch: catch,
		New: func() spi.ExecutionDispatcher {
			return memory.New(memory.Config{Targets: []string{"cpu", "gpu"}, Hooks: h})
		}}, Clauses: clauses}
}

// Dispatchers returns every broken dispatcher.
func Dispatchers() []Broken {
	return []Broken{
		mk("lose-on-crash", "a package whose lease expired unacked is dropped, not re-delivered", "dispatcher/redeliver-after-crash",
			[]string{"I-DISPATCH-3"}, memory.Hooks{LoseExpired: true}),
		mk("double-deliver", "a live lease does not stop a second delivery to another worker", "dispatcher/exclusive-lease",
			[]string{"I-DISPATCH-4"}, memory.Hooks{IgnoreLease: true}),
		mk("dead-lease-lives", "heartbeat and ack of an expired, re-delivered lease succeed", "dispatcher/dead-lease-refused",
			[]string{"I-DISPATCH-4"}, memory.Hooks{AcceptDeadLease: true}),
		mk("any-target", "a package pinned to an unregistered target is queued instead of refused", "dispatcher/unknown-target-refused",
			[]string{"I-DISPATCH-5"}, memory.Hooks{AcceptAnyTarget: true}),
		mk("ignore-target", "a pinned package is delivered to a worker that does not serve its target", "dispatcher/target-routing",
			[]string{"S6.placement.compute-target", "I-DISPATCH-5"}, memory.Hooks{IgnoreTarget: true}),
		mk("adds-state", "the delivered package carries the execution's state in its hints", "dispatcher/coordinates-only",
			[]string{"S6.dispatch.coordinates-only", "I-DISPATCH-2"}, memory.Hooks{AddState: true}),
		mk("unordered", "every package of an execution is deliverable at once, so two workers drive it together", "dispatcher/order-per-execution",
			[]string{"I-DISPATCH-6"}, memory.Hooks{NoOrder: true}),
		mk("heartbeat-no-extend", "heartbeat answers success but the lease still expires", "dispatcher/heartbeat-extends",
			[]string{"I-DISPATCH-4"}, memory.Hooks{HeartbeatNoExtend: true}),
		mk("ack-keeps", "ack answers success but the package is delivered again", "dispatcher/ack-final",
			[]string{"I-DISPATCH-3"}, memory.Hooks{AckKeeps: true}),
		mk("phantom-target", "targets lists a target that dispatch then refuses", "dispatcher/targets-listed",
			[]string{"S6.placement.compute-target", "I-DISPATCH-5"}, memory.Hooks{PhantomTarget: true}),
	}
}

// Mutants registers every broken dispatcher.
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	for _, b := range Dispatchers() {
		out = append(out, spec.Mutant{ID: "dispatcher/execution-dispatcher/" + b.Name, Kind: "dispatcher", Defect: b.Defect,
			Clauses: b.Clauses, CaughtBy: []string{b.Catch}, Where: "kits/broken/dispatchers:TestBrokenDispatchersRejected"})
	}
	return out
}

// Checks lists the tests of this package.
func Checks() []spec.Check {
	return []spec.Check{
		{ID: "kits/broken/dispatchers-rejected", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit", "S6.dispatch.coordinates-only", "S6.placement.compute-target", "S6.fencing.zombie", "S6.resume.is-migration"},
			Where: "kits/broken/dispatchers:TestBrokenDispatchersRejected"},
		{ID: "reference/dispatch/memory-kit", Kind: spec.KindTest, Clauses: []string{"S10.kits.reference-impls", "I-DISPATCH-1"},
			Where: "kits/broken/dispatchers:TestMemoryDispatcherKit"},
	}
}
