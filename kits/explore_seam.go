package kits

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/spi"
)

// The exploration of every seam but the EventStore (whose model of fences and anchors is its own,
// eventstore_explore.go) is one driver over a table per seam: the operations with their clauses
// and weights, a side that applies a step to one store, and a model, kept on the reference side,
// that says which choice's zone a step is in. Scripts, shrinking, findings, the ids and the values
// are the EventStore explorer's (kits/explore, exploreIDs, exploreValues).

// xOp is one operation a seam's scripts make: the optional method it needs ("" = required), its
// weight in a script and the clauses a differing answer breaks.
type xOp struct {
	name, method string
	weight       int
	clauses      []string
}

// xSide is one store a script is applied to. apply makes a step and answers it; the reference
// side also tells, from the state before a step, the choice whose zone the step is in (choice,
// "" for none) and follows its own answers (follow), so the generator can aim at the state.
type xSide interface {
	apply(ctx context.Context, st explore.Step) xAnswer
	choice(st explore.Step) string
	follow(st explore.Step, ans xAnswer)
}

// xSeam is one seam's exploration.
type xSeam[T any] struct {
	check string
	seam  string // the manifest seam, for the methods a target declares
	ops   []xOp
	// extra are the clauses a differing answer may cite beside the operations' own: the choices
	// the model aligns and the exact decimals of numbers a double cannot hold (precision).
	extra     []string
	precision string
	// order names, per operation that lists, the choice a list of the same items in another
	// order cites (the byte order of I-STORE-28).
	order map[string]string
	// side makes a side over store; ids are the replay's names (exploreIDsAt), ref whether it is
	// the reference (which keeps the model).
	side func(store T, ids []string, ref bool) xSide
	// reference is a fresh in-memory reference store.
	reference func() T
	// args draws the arguments of op against the reference's state (ok false: no sensible step
	// now, draw another).
	args func(r *rand.Rand, ref xSide, id func() int, op string) (any, bool)
	// touched lists the reads that show what a write step did (none for a read), given the ids
	// the script has named so far: a write to one id shows on another it must not change.
	touched func(st explore.Step, named []int) []explore.Step
	// names lists the id indices a step names (to align a refusal of a name past spi.MaxIDBytes).
	names func(st explore.Step) []int
	// steps is a script's length; seed, when set, is the write a script begins with on each id
	// it names, so that every confusable id holds something another could be confused with.
	steps int
	seed  string
	// cleanup, when set, settles what a replay left on the target (a dispatcher's leases).
	cleanup func(ctx context.Context, target xSide)
	// atOnce lists the operations a script may make two at a time, each by its own client
	// (explore_together.go); their apply must be safe on one target side from two goroutines.
	atOnce []string
}

// clauses lists every clause the exploration may cite: each operation's, then extra.
func (x xSeam[T]) clauses() []string {
	var out []string
	for _, op := range x.ops {
		for _, c := range op.clauses {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	extra := x.extra
	if len(x.atOnce) > 0 {
		extra = append(slices.Clone(extra), "I-STORE-14") // answers of steps made at once
	}
	for _, c := range extra {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func (x xSeam[T]) opClauses(name string) []string {
	for _, op := range x.ops {
		if op.name == name {
			return op.clauses
		}
	}
	return nil
}

// hotIDs are the id indices one round's script names: the head of one confusable group, one id
// drawn from all, and three more of the group. Rounds walk the groups and their members in turn,
// so every confusable pair is named within a few rounds whatever the seed.
func hotIDs(r *rand.Rand, round, all int) []int {
	g := len(exploreIDGroups)
	group := exploreIDGroups[round%g]
	hot := []int{group[0], r.Intn(all)}
	for k := range 3 {
		hot = append(hot, group[1+(round/g*3+k)%(len(group)-1)])
	}
	return hot
}

// gen makes one script: a random walk over a fresh reference whose arguments follow its state.
func (x xSeam[T]) gen(seed int64, round int, declared func(string) bool) explore.Script {
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed*7919 + int64(round)))
	_, ids := exploreIDsAt("gen~")
	hot := hotIDs(r, round, len(ids))
	id := func() int { // the group's head, which the others are confused with, a third of the time
		if r.Intn(3) == 0 {
			return hot[0]
		}
		return hot[r.Intn(len(hot))]
	}
	var ops []string
	for _, op := range x.ops {
		if op.method == "" || declared(op.method) {
			for range op.weight {
				ops = append(ops, op.name)
			}
		}
	}
	ref := x.side(x.reference(), ids, true)
	s := explore.Script{Check: x.check, Seed: seed, Round: round}
	var first []int
	if x.seed != "" {
		for _, h := range hot {
			if !slices.Contains(first, h) {
				first = append(first, h)
			}
		}
	}
	// Steps made two at once come between the others, drawn from a source of their own, so the
	// walk of single steps draws what it drew before they existed.
	rt := rand.New(rand.NewSource(seed*7919 + int64(round) + 1<<40))
	idT := func() int {
		if rt.Intn(3) == 0 {
			return hot[0]
		}
		return hot[rt.Intn(len(hot))]
	}
	for made, tries := 0, 0; made < x.steps && tries < 20*x.steps; tries++ {
		if len(first) == 0 && len(x.atOnce) > 0 && rt.Intn(togetherEvery) == 0 {
			if st, ok := x.genTogether(ctx, rt, ref, idT, declared); ok {
				s.Steps = append(s.Steps, st)
			}
		}
		op, pick := ops[r.Intn(len(ops))], id
		if len(first) > 0 {
			h := first[0]
			op, pick, first = x.seed, func() int { return h }, first[1:]
		}
		a, ok := x.args(r, ref, pick, op)
		if !ok {
			continue
		}
		st := explore.Step{Op: op, Args: explore.Args(a)}
		if c, ok := a.(interface{ client() int }); ok {
			st.Client = c.client()
		}
		ref.follow(st, ref.apply(ctx, st))
		s.Steps = append(s.Steps, st)
		made++
	}
	return s
}

// replay applies s to c's target and to a fresh reference, with this replay's own names, and
// returns the first answer where they part. A refusal as an invalid argument of a step naming an id
// past spi.MaxIDBytes is the target's right (I-STORE-80): the script ends there, agreeing. A
// Together step is made on the target at once and compared with the reference making its steps one
// after the other, in every order (explore_together.go).
func (x xSeam[T]) replay(c *Case[T], target func(ctx context.Context) (T, error)) explore.Replay {
	return func(ctx context.Context, s explore.Script) (*explore.Mismatch, error) {
		store, err := target(ctx)
		if err != nil {
			return nil, err
		}
		_, ids := exploreIDsAt(c.ExecID("x") + "~")
		tgt := x.side(store, ids, false)
		if x.cleanup != nil {
			defer x.cleanup(context.WithoutCancel(ctx), tgt)
		}
		refs := newOracle(func(applied []explore.Step) xSide {
			ref := x.side(x.reference(), ids, true)
			for _, a := range applied {
				ref.follow(a, ref.apply(ctx, a))
			}
			return ref
		})
		var named []int
		for i, st := range s.Steps {
			steps := []explore.Step{st}
			if st.Op == explore.Together {
				steps = st.Together
			}
			for _, sub := range steps {
				for _, n := range x.names(sub) {
					if !slices.Contains(named, n) {
						named = append(named, n)
					}
				}
			}
			var m *explore.Mismatch
			var tooLong bool
			tgtRead := readOnce(func(read explore.Step) xAnswer { return tgt.apply(ctx, read) })
			if st.Op == explore.Together {
				got := atOnce(st, func(sub explore.Step) xAnswer { return tgt.apply(ctx, sub) }, c.Recover)
				m, tooLong = refs.together(st, x.writes, func(ref xSide, order []explore.Step, perm []int) (*explore.Mismatch, bool) {
					return x.madeInOrder(ctx, ref, tgtRead, order, perm, got, ids, named)
				})
				for k, sub := range st.Together {
					tgt.follow(sub, got[k])
				}
			} else {
				got := tgt.apply(ctx, st)
				tgt.follow(st, got)
				m, tooLong = refs.step(st, func(ref xSide) (*explore.Mismatch, bool) {
					choice := ref.choice(st)
					want := ref.apply(ctx, st)
					ref.follow(st, want)
					if x.refusedTooLong(st, ids, want, got) {
						return nil, true
					}
					if m := x.judge(st, choice, want, got); m != nil {
						return m, false
					}
					return x.readBack(ctx, ref, tgtRead, st, choice, named), false
				})
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if tooLong {
				return nil, nil
			}
			if m != nil {
				m.Step = i
				if m.Args == "" {
					m.Args = xShowArgs(st, ids, x.names)
				}
				return m, nil
			}
		}
		return nil, nil
	}
}

// madeInOrder makes steps made at once on ref in order (perm: their positions in the Together step,
// whose answers got holds by position) and compares each answer, then what each touched.
func (x xSeam[T]) madeInOrder(ctx context.Context, ref xSide, tgtRead func(explore.Step) xAnswer, order []explore.Step, perm []int, got []xAnswer, ids []string, named []int) (*explore.Mismatch, bool) {
	var m *explore.Mismatch
	choices := make([]string, len(order))
	for i, sub := range order {
		choices[i] = ref.choice(sub)
		want := ref.apply(ctx, sub)
		ref.follow(sub, want)
		if x.refusedTooLong(sub, ids, want, got[perm[i]]) {
			return nil, true
		}
		if m == nil {
			if m = x.judge(sub, choices[i], want, got[perm[i]]); m != nil {
				m.Args = xShowArgs(sub, ids, x.names)
			}
		}
	}
	for i, sub := range order {
		if m != nil {
			break
		}
		if m = x.readBack(ctx, ref, tgtRead, sub, choices[i], named); m != nil {
			m.Args = xShowArgs(sub, ids, x.names)
		}
	}
	return m, false
}

// judge compares one answer; a difference in a choice's zone cites the choice.
func (x xSeam[T]) judge(st explore.Step, choice string, want, got xAnswer) *explore.Mismatch {
	m := x.compare(st, want, got)
	if m != nil && choice != "" && !slices.Equal(m.Clauses, []string{x.precision}) {
		m.Clauses = []string{choice} // the answer rests on the choice
	}
	return m
}

func (x xSeam[T]) refusedTooLong(st explore.Step, ids []string, want, got xAnswer) bool {
	return got.refusal == "invalid argument" && want.refusal == "" && x.namesTooLong(st, ids)
}

// readBack reads back what write step st touched on both sides: what a write did shows in what it
// touched, and a write to one id shows on another it must not change.
func (x xSeam[T]) readBack(ctx context.Context, ref xSide, tgtRead func(explore.Step) xAnswer, st explore.Step, choice string, named []int) *explore.Mismatch {
	for _, read := range x.touched(st, named) {
		m := x.compare(read, ref.apply(ctx, read), tgtRead(read))
		if m == nil {
			continue
		}
		m.Op = st.Op + " then " + read.Op
		switch {
		case !slices.Equal(m.Clauses, x.opClauses(read.Op)):
			// the read's answer rests on a choice of its own (precision, order)
		case choice != "":
			m.Clauses = []string{choice}
		default:
			m.Clauses = x.opClauses(st.Op)
		}
		return m
	}
	return nil
}

// writes reports whether st may change what the target holds (a read does not).
func (x xSeam[T]) writes(st explore.Step) bool { return len(x.touched(st, []int{0})) > 0 }

func (x xSeam[T]) namesTooLong(st explore.Step, ids []string) bool {
	for _, i := range x.names(st) {
		if i >= 0 && i < len(ids) && len(ids[i]) > spi.MaxIDBytes {
			return true
		}
	}
	return false
}

// compare compares one answer: a refusal that differs, or a value that differs (as JSON values);
// values equal once numbers are read as doubles cite the exact decimals (precision, a choice).
func (x xSeam[T]) compare(st explore.Step, want, got xAnswer) *explore.Mismatch {
	clauses := x.opClauses(st.Op)
	if want.refusal != got.refusal {
		return &explore.Mismatch{Op: st.Op, Got: got.String(), Want: want.String(), Clauses: clauses}
	}
	if want.refusal != "" {
		return nil
	}
	wb, _ := json.Marshal(want.value)
	gb, _ := json.Marshal(got.value)
	if spi.SameJSON(wb, gb) {
		return nil
	}
	var w, g any
	_ = json.Unmarshal(wb, &w)
	_ = json.Unmarshal(gb, &g)
	switch {
	case x.precision != "" && spi.SameJSON(asDoubles(wb), asDoubles(gb)):
		clauses = []string{x.precision}
	case x.order[st.Op] != "" && sameItems(w, g):
		clauses = []string{x.order[st.Op]}
	}
	return &explore.Mismatch{Op: st.Op, Got: got.String(), Want: want.String(), Clauses: clauses, Diff: firstDifference("", w, g)}
}

// firstDifference is where two JSON values first differ, as a JSON Pointer with both values
// there (cheap on long strings and lists, unlike a full diff).
func firstDifference(at string, w, g any) string {
	show := func(v any) string { b, _ := json.Marshal(v); return clipS(string(b)) }
	switch wv := w.(type) {
	case map[string]any:
		if gv, ok := g.(map[string]any); ok {
			keys := make([]string, 0, len(wv)+len(gv))
			for k := range wv {
				keys = append(keys, k)
			}
			for k := range gv {
				if _, ok := wv[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				wb, _ := json.Marshal(wv[k])
				gb, _ := json.Marshal(gv[k])
				if !spi.SameJSON(wb, gb) {
					return firstDifference(at+"/"+k, wv[k], gv[k])
				}
			}
		}
	case []any:
		if gv, ok := g.([]any); ok {
			for i := range min(len(wv), len(gv)) {
				wb, _ := json.Marshal(wv[i])
				gb, _ := json.Marshal(gv[i])
				if !spi.SameJSON(wb, gb) {
					return firstDifference(fmt.Sprintf("%s/%d", at, i), wv[i], gv[i])
				}
			}
			if len(wv) != len(gv) {
				return fmt.Sprintf("at %s: %d items, want %d", or(at, "/"), len(gv), len(wv))
			}
		}
	}
	return fmt.Sprintf("at %s: %s, want %s", or(at, "/"), show(g), show(w))
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// sameItems reports whether a and b are lists of the same JSON values, each as often, in any
// order (a list may also be an object's "docs" member, a page's).
func sameItems(a, b any) bool {
	if ma, ok := a.(map[string]any); ok {
		mb, _ := b.(map[string]any)
		a, b = ma["docs"], mb["docs"]
	}
	la, ok1 := a.([]any)
	lb, ok2 := b.([]any)
	if !ok1 || !ok2 || len(la) != len(lb) {
		return false
	}
	text := func(l []any) []string {
		var out []string
		for _, v := range l {
			b, _ := json.Marshal(v)
			out = append(out, string(b))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(text(la), text(lb))
}

// xShowArgs is a step's arguments with the ids it names written out.
func xShowArgs(st explore.Step, ids []string, names func(explore.Step) []int) string {
	var shown []string
	for _, i := range names(st) {
		n, _ := xName(ids, min(i, len(ids)-1))
		shown = append(shown, strconv.Quote(clipS(n)))
	}
	return strings.Join(append(shown, string(st.Args)), " ")
}

// run is the check: c.Explore scripts through replay, every declared method drawn.
func (x xSeam[T]) run(ctx context.Context, c *Case[T]) error {
	declared := func(m string) bool { return spi.Has(x.seam, c.Store, m) }
	target := func(context.Context) (T, error) { return c.Store, nil }
	return exploreRounds(ctx, c, x.replay(c, target), func(round int) explore.Script { return x.gen(c.Seed, round, declared) })
}

// exploreTwins are two values a double reads as one: a store that compares or keeps numbers as
// doubles takes the second for the first (I-STORE-25, I-STORE-29).
var exploreTwins = []string{`{"twin":12345678901234567890}`, `{"twin":12345678901234567891}`}

// twinOf is the index, in values, of the twin of values[i], or of the first twin when values[i]
// is none (i itself when values holds no twins).
func twinOf(values []string, i int) int {
	for k, t := range exploreTwins {
		if i >= 0 && i < len(values) && values[i] == t {
			return slices.Index(values, exploreTwins[1-k])
		}
	}
	if k := slices.Index(values, exploreTwins[0]); k >= 0 {
		return k
	}
	return i
}

// exploreValuesNoNul is exploreValues without the values holding U+0000, for the seams whose
// U+0000 round trip is a recommendation checked on its own (jsonb refuses it), and the twins.
func exploreValuesNoNul() []string {
	var out []string
	for _, v := range exploreValues() {
		if !strings.Contains(v, `\u0000`) {
			out = append(out, v)
		}
	}
	return append(out, exploreTwins...)
}
