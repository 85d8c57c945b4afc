package kits

import (
	"context"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/spec"
)

// Two clients at once. A seam that lists operations in xSeam.atOnce (the EventStore: esAtOnce) has
// its scripts make, now and then, two of them at the same time on one id, each by its own client
// (an explore.Together step): two saves of one execution, an append and a deleteThrough, an archive
// call and a read. The target answers them concurrently; the reference answers them one after the
// other, and the target's answers, and what it holds after them, must be the reference's in one of
// the orders (linearizability, I-STORE-14). Two orders may agree on every answer and every read yet
// leave different states (two saves at one sequence that no read shows yet), so the oracle keeps
// every reference state the target may be in, and a later step keeps those that answer as the
// target does. The reference cannot be forked, so each order is made on a fresh reference that
// first makes every step its candidate made before (cheap: a script is a few dozen in-memory
// steps). The operations made at once must be safe to apply to a target side from two goroutines
// (their apply keeps no bookkeeping).

// togetherEvery is how often, one step in so many, a script of a seam with operations made at once
// makes two.
const togetherEvery = 5

// maxCandidates bounds the reference states an oracle keeps; past it the first are kept. Each pair
// of a script adds at most one, and most pairs' answers tell their order at once.
const maxCandidates = 16

// oracle is the reference states a target may be in after the steps so far.
type oracle[R any] struct {
	fresh func(applied []explore.Step) R // a reference that made applied, one after the other
	cands []candidate[R]
}

type candidate[R any] struct {
	ref     R
	applied []explore.Step
}

func newOracle[R any](fresh func(applied []explore.Step) R) *oracle[R] {
	return &oracle[R]{fresh: fresh, cands: []candidate[R]{{ref: fresh(nil)}}}
}

// step makes st on every candidate through judge, which compares it with the target's answer
// (and what st touched) and reports a refused name past spi.MaxIDBytes (tooLong: the script ends
// agreeing). Candidates that disagree drop out; when none is left, the mismatch that binds least
// (a choice before a rule) is returned.
func (o *oracle[R]) step(st explore.Step, judge func(ref R) (m *explore.Mismatch, tooLong bool)) (*explore.Mismatch, bool) {
	var kept []candidate[R]
	var least *explore.Mismatch
	for _, c := range o.cands {
		m, tooLong := judge(c.ref)
		switch {
		case tooLong:
			return nil, true
		case m == nil:
			kept = append(kept, candidate[R]{c.ref, append(slices.Clip(c.applied), st)})
		default:
			least = bindsLeast(least, m)
		}
	}
	if len(kept) == 0 {
		return least, false
	}
	o.cands = kept
	return nil, false
}

// together makes the steps of Together step st, which the target has answered, on a fresh
// reference per candidate and per order, through judge (given the steps in that order); every
// order that agrees is a candidate after it. When at most one of the steps writes (writes), every
// order that agrees leaves the same state, and the first is enough.
func (o *oracle[R]) together(st explore.Step, writes func(explore.Step) bool, judge func(ref R, order []explore.Step, perm []int) (m *explore.Mismatch, tooLong bool)) (*explore.Mismatch, bool) {
	writers := 0
	for _, sub := range st.Together {
		if writes(sub) {
			writers++
		}
	}
	var kept []candidate[R]
	var least *explore.Mismatch
	for _, c := range o.cands {
		found := false
		for _, perm := range orders(len(st.Together)) {
			if found && writers <= 1 {
				break // this candidate's state after the steps is the one found
			}
			order := make([]explore.Step, len(perm))
			for i, k := range perm {
				order[i] = st.Together[k]
			}
			ref := o.fresh(c.applied)
			m, tooLong := judge(ref, order, perm)
			switch {
			case tooLong:
				return nil, true
			case m == nil:
				kept, found = append(kept, candidate[R]{ref, slices.Concat(c.applied, order)}), true
			default:
				least = bindsLeast(least, m)
			}
		}
	}
	if len(kept) == 0 {
		return madeAtOnce(st, least), false
	}
	// Orders whose writes commute leave equal references (the reference stores are plain values in
	// memory): one of them is enough.
	o.cands = o.cands[:0]
	for _, k := range kept {
		if len(o.cands) < maxCandidates && !slices.ContainsFunc(o.cands, func(c candidate[R]) bool { return reflect.DeepEqual(c.ref, k.ref) }) {
			o.cands = append(o.cands, k)
		}
	}
	return nil, false
}

// bindsLeast is the one of two mismatches that binds least: a recommendation before a requirement,
// else the first.
func bindsLeast(a, b *explore.Mismatch) *explore.Mismatch {
	if a == nil || spec.RequirementOf(b.Clauses) == spec.Recommended && spec.RequirementOf(a.Clauses) == spec.Required {
		return b
	}
	return a
}

// madeAtOnce is m, the mismatch of Together step st, saying so: its operation names the steps made
// at once, and a required one cites I-STORE-14 (linearizability) beside the operation's clauses.
func madeAtOnce(st explore.Step, m *explore.Mismatch) *explore.Mismatch {
	var ops []string
	for _, sub := range st.Together {
		ops = append(ops, sub.Op)
	}
	m.Op += " (made at once: " + strings.Join(ops, " ∥ ") + ")"
	if spec.RequirementOf(m.Clauses) == spec.Required && !slices.Contains(m.Clauses, "I-STORE-14") {
		m.Clauses = append(slices.Clone(m.Clauses), "I-STORE-14")
	}
	return m
}

// atOnce makes the steps of Together step st on the target, each in its own goroutine, released
// together, and returns their answers by position. recov is deferred first in each goroutine
// (Case.Recover).
func atOnce[A any](st explore.Step, apply func(explore.Step) A, recov func()) []A {
	got := make([]A, len(st.Together))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for k, sub := range st.Together {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer recov()
			<-start
			got[k] = apply(sub)
		}()
	}
	close(start)
	wg.Wait()
	return got
}

// readOnce answers each read once per step of a script, however many candidates compare it: the
// target holds the same between them.
func readOnce(read func(explore.Step) xAnswer) func(explore.Step) xAnswer {
	seen := map[string]xAnswer{}
	return func(st explore.Step) xAnswer {
		k := st.String()
		if a, ok := seen[k]; ok {
			return a
		}
		a := read(st)
		seen[k] = a
		return a
	}
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

func (x xSeam[T]) opMethod(name string) string {
	for _, op := range x.ops {
		if op.name == name {
			return op.method
		}
	}
	return ""
}
