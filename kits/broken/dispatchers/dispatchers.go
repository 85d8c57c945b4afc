package dispatchers

import (
	"context"

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
			[]string{"S6.placement.compute-target", "I-DISPATCH-15"}, memory.Hooks{IgnoreTarget: true}),
		mk("adds-state", "the delivered package carries the execution's state in its hints", "dispatcher/coordinates-only",
			[]string{"S6.dispatch.coordinates-only", "I-DISPATCH-14"}, memory.Hooks{AddState: true}),
		mk("unordered", "every package of an execution is deliverable at once, so two workers drive it together", "dispatcher/order-per-execution",
			[]string{"I-DISPATCH-6"}, memory.Hooks{NoOrder: true}),
		mk("heartbeat-no-extend", "heartbeat answers success but the lease still expires", "dispatcher/heartbeat-extends",
			[]string{"I-DISPATCH-4"}, memory.Hooks{HeartbeatNoExtend: true}),
		mk("ack-keeps", "ack answers success but the package is delivered again", "dispatcher/ack-final",
			[]string{"I-DISPATCH-3"}, memory.Hooks{AckKeeps: true}),
		mk("phantom-target", "targets lists a target that dispatch then refuses", "dispatcher/targets-listed",
			[]string{"S6.placement.compute-target", "I-DISPATCH-15"}, memory.Hooks{PhantomTarget: true}),
		mk("expired-lease-revives", "an expired lease lives on until another worker claims its package: a late heartbeat or ack succeeds and the heartbeat revives it", "dispatcher/expired-lease-dead",
			[]string{"I-DISPATCH-4", "I-DISPATCH-11"}, memory.Hooks{ReviveExpired: true}),
		mk("newest-first", "claim leases the newest deliverable package instead of the oldest", "dispatcher/claim-oldest-deliverable",
			[]string{"I-DISPATCH-12"}, memory.Hooks{NewestFirst: true}),
		mk("head-of-line", "claim looks only at the oldest unacked package, so while it is leased nothing else is delivered", "dispatcher/claim-oldest-deliverable",
			[]string{"I-DISPATCH-12"}, memory.Hooks{HeadOfLine: true}),
		mk("drops-empty-hints", "hints that are an empty object are delivered as no hints", "dispatcher/coordinates-only",
			[]string{"I-DISPATCH-14"}, memory.Hooks{DropEmptyHints: true}),
		mk("drops-empty-members", "hint members whose value is empty (\"\", {}, [], null) are dropped on delivery", "dispatcher/coordinates-only",
			[]string{"I-DISPATCH-14"}, memory.Hooks{DropEmptyMembers: true}),
		mk("expires-in-seconds", "a lease's expiresAt is in epoch seconds, not milliseconds", "dispatcher/lease-terms",
			[]string{"I-DISPATCH-11"}, memory.Hooks{ExpiresInSeconds: true}),
		mk("any-ttl", "claim and heartbeat clamp a TTL outside 1 ms .. 10 min instead of refusing it", "dispatcher/lease-ttl-bounds",
			[]string{"I-DISPATCH-13"}, memory.Hooks{AnyTTL: true}),
		{Store: broken.Store[spi.ExecutionDispatcher]{Name: "target-before-argument", Defect: "dispatch looks the target up before it validates the package, so a package too large and pinned to an unregistered target is an unknown target (breaks only a recommendation)",
			Catch: "dispatcher/refusal-order", New: func() spi.ExecutionDispatcher {
				return targetBeforeArgument{memory.New(memory.Config{Targets: []string{"cpu", "gpu"}})}
			}}, Clauses: []string{"I-STORE-56"}},
		mk("half-ttl-takeover", "a lease can be taken over by another worker once half its TTL has passed", "dispatcher/exclusive-whole-ttl",
			[]string{"I-DISPATCH-4"}, memory.Hooks{HalfTTL: true}),
		mk("heartbeat-from-expiry", "a heartbeat adds its TTL to the old expiry instead of to now: a 1 s heartbeat on a 60 s lease gives now + 61 s", "dispatcher/heartbeat-from-now",
			[]string{"I-DISPATCH-30"}, memory.Hooks{HeartbeatFromExpiry: true}),
		mk("normalises-strings", "delivered execution ids, flow ids and hints are NFC-composed, so the package delivered differs from the one dispatched", "dispatcher/exact-strings",
			[]string{"I-DISPATCH-14"}, memory.Hooks{NormaliseStrings: true}),
		mk("acked-heartbeat-revives", "a heartbeat of an acked lease puts its package back in the queue, so it is delivered again", "dispatcher/heartbeat-after-ack",
			[]string{"I-DISPATCH-3"}, memory.Hooks{AckedHeartbeatRevives: true}),
		mk("acked-heartbeat-succeeds", "a heartbeat of an acked lease answers success and changes nothing (breaks only a recommendation)", "dispatcher/heartbeat-after-ack",
			[]string{"I-DISPATCH-31"}, memory.Hooks{AckedHeartbeatOK: true}),
		mk("hints-bound-exclusive", "hints of exactly 4 096 bytes are refused, the bound counted as exclusive", "dispatcher/package-shape",
			[]string{"I-DISPATCH-2", "I-DISPATCH-10"}, memory.Hooks{HintsBoundBelow: true}),
		mk("claim-check-then-set-natural", "claim picks the oldest deliverable package, then leases it in a second step, so racing workers can both receive it (natural window: the lock is released for one yield between the two steps, nothing held open)", "dispatcher/concurrent-claims",
			[]string{"I-DISPATCH-3", "I-DISPATCH-4"}, memory.Hooks{ClaimCheckThenSet: true}),
		mk("takeover-check-then-set-natural", "a claim that takes over an expired lease sees it dead, then re-leases the package in a second step, so racing workers can both take it over (natural window: the lock is released for one yield between the two steps, nothing held open)", "dispatcher/concurrent-takeover",
			[]string{"I-DISPATCH-3", "I-DISPATCH-4"}, memory.Hooks{TakeoverCheckThenSet: true}),
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
		{ID: "kits/broken/dispatchers-natural-rejected", Kind: spec.KindTest, Clauses: []string{"I-COV-5", "I-DISPATCH-3", "I-DISPATCH-4"},
			Where: "kits/broken/dispatchers:TestNaturalDispatchersRejected"},
		{ID: "kits/dispatcher-stall-diagnosed", Kind: spec.KindTest, Clauses: []string{"I-CERT-61", "I-DISPATCH-12"},
			Where: "kits/broken/dispatchers:TestHeadOfLineStallDiagnosed"},
		{ID: "reference/dispatch/memory-kit", Kind: spec.KindTest, Clauses: []string{"S10.kits.reference-impls", "I-DISPATCH-1"},
			Where: "kits/broken/dispatchers:TestMemoryDispatcherKit"},
	}
}

// targetBeforeArgument looks the target up before it validates the package.
type targetBeforeArgument struct{ *memory.Dispatcher }

func (d targetBeforeArgument) Dispatch(ctx context.Context, p spi.ExecutionPackage) error {
	if p.Target != "" && p.Target != "cpu" && p.Target != "gpu" {
		return &spi.UnknownTargetError{Target: p.Target, Known: []string{"cpu", "gpu"}}
	}
	return d.Dispatcher.Dispatch(ctx, p)
}
