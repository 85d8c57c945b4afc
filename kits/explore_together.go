package kits

import (
	"context"
	"math/rand"
	"slices"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/spec"
)

// Two clients at once. A seam that lists operations in xSeam.atOnce has its scripts make, now
// and then, two of them at the same time on one id, each by its own client (an explore.Together
// step): two saves of one execution, two registrations of one branch, an archive call and a read.
// The target answers them concurrently; the reference answers them one after the other, and the
// target's answers must be the reference's in one of the orders (linearizability, I-STORE-14, for
// each pair). The reference cannot be forked, so each order is tried on a fresh reference that
// first makes every step the script made before (cheap: a script is a few dozen in-memory steps).
// The operations listed must be safe to apply to a target side from two goroutines (their apply
// keeps no bookkeeping; follow runs after both, in the order that matched).

// togetherEvery is how often, one step in so many, a script of a seam with atOnce operations
// makes two at once.
const togetherEvery = 5

// genTogether draws a Together step: two of the operations in x.atOnce the target declares, on
// one id, both with arguments drawn from the reference's state before either (so both may be
// conditioned on it) or the second with the first's, and makes them on the reference one after
// the other.
func (x xSeam[T]) genTogether(ctx context.Context, r *rand.Rand, ref xSide, id func() int, declared func(string) bool) (explore.Step, bool) {
	var ops []string
	for _, op := range x.atOnce {
		if m := x.opMethod(op); m == "" || declared(m) {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		return explore.Step{}, false
	}
	h := id()
	st := explore.Step{Op: explore.Together}
	for client := 1; client <= 2; client++ {
		calls := 0
		same := func() int { // the step's own id is the race's; any other it names is drawn as usual
			if calls++; calls == 1 {
				return h
			}
			return id()
		}
		op := ops[r.Intn(len(ops))]
		if client == 2 && r.Intn(2) == 0 {
			// the first one's arguments, under its operation or another: the same snapshot saved
			// twice, the same content put and read, the same branch registered twice
			st.Together = append(st.Together, explore.Step{Client: client, Op: op, Args: st.Together[0].Args})
			continue
		}
		a, ok := x.args(r, ref, same, op)
		if !ok {
			return explore.Step{}, false
		}
		st.Together = append(st.Together, explore.Step{Client: client, Op: op, Args: explore.Args(a)})
	}
	for _, sub := range st.Together {
		ref.follow(sub, ref.apply(ctx, sub))
	}
	return st, true
}

// together makes st's steps on the target at once, then looks for an order of them in which a
// fresh reference, having made applied first, answers as the target did and then holds what the
// target holds (the reads of what the steps touched agree). It returns that reference and the
// steps in that order; or, when no order matches, the mismatch of the order whose first difference
// binds least (a choice before a rule), citing I-STORE-14 beside the operation's clauses. tooLong
// reports the target refusing a name past spi.MaxIDBytes (its right). recov is deferred first in
// each goroutine that calls the target (Case.Recover).
func (x xSeam[T]) together(ctx context.Context, st explore.Step, ids []string, applied []explore.Step, named []int, tgt xSide, recov func()) (ref xSide, order []explore.Step, m *explore.Mismatch, tooLong bool) {
	got := make([]xAnswer, len(st.Together))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for k, sub := range st.Together {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer recov()
			<-start
			got[k] = tgt.apply(ctx, sub)
		}()
	}
	close(start)
	wg.Wait()
	var best *explore.Mismatch
	for _, perm := range orders(len(st.Together)) {
		fresh := x.side(x.reference(), ids, true)
		for _, a := range applied {
			fresh.follow(a, fresh.apply(ctx, a))
		}
		order = order[:0]
		var choices []string
		var pm *explore.Mismatch
		for _, k := range perm {
			sub := st.Together[k]
			choice := fresh.choice(sub)
			want := fresh.apply(ctx, sub)
			fresh.follow(sub, want)
			order, choices = append(order, sub), append(choices, choice)
			if x.refusedTooLong(sub, ids, want, got[k]) {
				return fresh, order, nil, true
			}
			if pm == nil {
				if pm = x.judge(sub, choice, want, got[k]); pm != nil {
					pm.Args = xShowArgs(sub, ids, x.names)
				}
			}
		}
		for i, sub := range order {
			if pm == nil {
				if pm = x.readBack(ctx, fresh, tgt, sub, choices[i], named); pm != nil {
					pm.Args = xShowArgs(sub, ids, x.names)
				}
			}
		}
		if pm == nil {
			for _, k := range perm {
				tgt.follow(st.Together[k], got[k])
			}
			return fresh, order, nil, false
		}
		if best == nil || spec.RequirementOf(pm.Clauses) == spec.Recommended && spec.RequirementOf(best.Clauses) == spec.Required {
			best = pm
		}
	}
	var others []string
	for _, sub := range st.Together {
		others = append(others, sub.Op)
	}
	best.Op = best.Op + " (made at once: " + strings.Join(others, " ∥ ") + ")"
	if spec.RequirementOf(best.Clauses) == spec.Required && !slices.Contains(best.Clauses, "I-STORE-14") {
		best.Clauses = append(slices.Clone(best.Clauses), "I-STORE-14")
	}
	return nil, nil, best, false
}

// orders lists every order of n steps (2 in the scripts made; a script file may hold up to 4).
func orders(n int) [][]int {
	if n <= 1 {
		return [][]int{{0}}
	}
	var out [][]int
	for _, rest := range orders(n - 1) {
		for at := 0; at <= len(rest); at++ {
			p := append(append(append([]int(nil), rest[:at]...), n-1), rest[at:]...)
			out = append(out, p)
		}
	}
	return out
}

func (x xSeam[T]) opMethod(name string) string {
	for _, op := range x.ops {
		if op.name == name {
			return op.method
		}
	}
	return ""
}
