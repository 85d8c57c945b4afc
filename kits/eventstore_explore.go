package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// The EventStore's exploration (eventstore/explore): seeded scripts of every method the target
// declares, over ids that differ by one delimiter, a case, a normal form, a prefix or a long tail
// and values from the round-trip corpus, applied to the target and to the in-memory reference
// store; the first answer where they part is shrunk to a minimal script (kits/explore).

// esExploreClauses are the clauses of each operation's answer: what a differing answer breaks.
var esExploreClauses = map[string][]string{
	"append":             {"I-STORE-1", "I-STORE-2", "I-STORE-3", "I-STORE-4"},
	"read":               {"I-STORE-3", "I-STORE-4"},
	"readRange":          {"S7.es.read-range", "I-STORE-5", "I-STORE-4"},
	"acquireFence":       {"S7.es.acquire-fence", "I-STORE-6"},
	"acquireFenceIf":     {"S7.es.acquire-fence-if", "I-STORE-7"},
	"observe":            {"S7.es.append-if-unchanged", "I-STORE-8"},
	"appendIfUnchanged":  {"S7.es.append-if-unchanged", "I-STORE-8", "S7.es.incarnation-anchor"},
	"deleteThrough":      {"S7.es.delete-through-atomic", "I-STORE-10"},
	"copyPrefix":         {"S7.es.copy-prefix", "I-STORE-11"},
	"deleteExecution":    {"S7.es.delete-execution", "I-STORE-12", "I-STORE-4"},
	"listExecutionsPage": {"S7.es.list-executions-page", "I-STORE-13", "I-STORE-4"},
}

// esExploreExtra are the clauses a differing answer cites beside an operation's own: a fenced
// refusal (a zombie's write), and the choices of esModel.choice, the order of several refusals and
// a number a double cannot hold.
var esExploreExtra = []string{"S6.fencing.zombie", "I-STORE-50", "I-STORE-25", "I-STORE-66", "I-STORE-67", "I-STORE-68", "I-STORE-69", "I-STORE-71", "I-STORE-28", "I-STORE-52"}

// EventStoreExploreClauses lists every clause eventstore/explore may cite.
func EventStoreExploreClauses() []string {
	var out []string
	for _, op := range esExploreOps {
		for _, c := range esExploreClauses[op.name] {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return append(out, esExploreExtra...)
}

// esExploreOps are the operations, each with the optional method it needs ("" = required) and its
// weight in a script.
var esExploreOps = []struct {
	name, method string
	weight       int
}{
	{"append", "", 8}, {"read", "", 4}, {"readRange", spi.MethodReadRange, 2},
	{"acquireFence", spi.MethodAcquireFence, 2}, {"acquireFenceIf", spi.MethodAcquireFenceIf, 1},
	{"observe", spi.MethodAppendIfUnchanged, 1}, {"appendIfUnchanged", spi.MethodAppendIfUnchanged, 2},
	{"deleteThrough", spi.MethodDeleteThrough, 1}, {"copyPrefix", spi.MethodCopyPrefix, 1},
	{"deleteExecution", spi.MethodDeleteExecution, 1}, {"listExecutionsPage", spi.MethodListExecutionsPage, 1},
}

// esAtOnce are the operations a script may make two at once on one id (explore_together.go).
// None yet: made at once, appends, reads, deletes and copies parted from every order of the
// reference on the PostgreSQL store behind the bridge, in a way not yet explained (certify's
// TestCertifyPostgres, seed 1), so the EventStore's exploration makes one step at a time until it is.
var esAtOnce []string

func esOpMethod(name string) string {
	for _, op := range esExploreOps {
		if op.name == name {
			return op.method
		}
	}
	return ""
}

// exploreIDs are the ids a script names, as suffixes of a per-replay base: groups of ids a store
// must keep apart although they differ by one delimiter (and its escape), a case, a trailing blank,
// a prefix, a normal form or the tail of a long id (I-STORE-4).
var exploreIDs = []string{
	"a:b", "a_b", "a/b", "a.b", "a-b", "a b", "a%3Ab", "a|b", "a\\b", // 0–8: one delimiter
	"a", "A", "a0", "a ", // 9–12: case, prefix, trailing blank
	"caf\u00e9", "cafe\u0301", // 13–14: normal form
	"L1", "L2", // 15–16: long ids, padded to spi.MaxIDBytes by exploreIDsAt
	"\U0001F9F5", "\uFF21", "\uE000", "\U00010000", // 17–20: byte order is not UTF-16 order
	"L3", // 21: past spi.MaxIDBytes, which a store may refuse (I-STORE-80)
}

// exploreIDGroups are the ids a store confuses with one another, the first being the one the
// others are confused with: a script names it and draws most of its other ids from its group.
var exploreIDGroups = [][]int{{9, 0, 1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14}, {15, 16, 21}, {17, 18, 19, 20}}

// exploreQuarantine are the reserved control streams (spec §7, __loom_quarantine__:<chainId>) a
// script also names, after the ids below its base: two chains' streams are two logs.
var exploreQuarantine = []string{"__loom_quarantine__:", "__loom_quarantine__:2:"}

// exploreMetadata are the metadata a script's envelopes carry ("" for none).
func exploreMetadata() []string {
	out := []string{""}
	for _, v := range hardValues() {
		if v.metadata != "" {
			out = append(out, v.metadata)
		}
	}
	return out
}

// exploreValues are the payloads a script appends: the round-trip corpus, integers a double holds
// exactly but int64 does not, and (last) numbers a double cannot hold.
func exploreValues() []string {
	var out []string
	for _, v := range hardValues() {
		out = append(out, v.payload)
	}
	big, _ := largeValue(8<<10, 0)
	out = append(out, `{"u":10000000000000000000,"p64":18446744073709551616,"n63":-9223372036854775808,"p63":9223372036854775808}`,
		`[9007199254740992,-9007199254740992,1e308,5e-324]`, big)
	for _, v := range precisionValues() {
		out = append(out, v.payload)
	}
	return out
}

// esArgs are a step's arguments: ids are indices into exploreIDs; Fence and Anchor name the k-th
// token and anchor the script acquired so far, counting from 1 (0: none).
type esArgs struct {
	ID      int   `json:"id"`
	To      int   `json:"to,omitempty"`
	Seq     int64 `json:"seq,omitempty"`
	N       int   `json:"n,omitempty"`
	Values  []int `json:"values,omitempty"`
	Meta    []int `json:"meta,omitempty"`
	Bad     int   `json:"bad,omitempty"` // the k-th envelope (from 1) names another execution: invalid
	Fence   int   `json:"fence,omitempty"`
	Anchor  int   `json:"anchor,omitempty"`
	From    int64 `json:"from,omitempty"`
	Through int64 `json:"through,omitempty"`
	Limit   int   `json:"limit,omitempty"`
}

// esGen makes one script: a random walk over the reference, whose arguments are mostly right for
// the state the reference is in (the next sequence, the current token) and sometimes wrong.
func esGen(ctx context.Context, seed int64, round, steps int, declared func(string) bool) explore.Script {
	r := rand.New(rand.NewSource(seed*7919 + int64(round)))
	hot := hotIDs(r, round, len(exploreIDs)+len(exploreQuarantine))
	values, metas := exploreValues(), exploreMetadata()
	var last *esArgs // the last append, to re-send
	var ops []string
	for _, op := range esExploreOps {
		if op.method == "" || declared(op.method) {
			for range op.weight {
				ops = append(ops, op.name)
			}
		}
	}
	ref := newESReference()
	base, ids := exploreIDsAt("gen~")
	// draw draws op's arguments on id first from r, naming any other id with id, mostly right for
	// the reference's state (ok false: no sensible step now).
	draw := func(r *rand.Rand, first int, id func() int, op string) (esArgs, bool) {
		a := esArgs{ID: first}
		next := ref.model.next[a.ID]
		switch op {
		case "append", "appendIfUnchanged":
			a.Seq, a.N = next, 1+r.Intn(3)
			switch r.Intn(8) {
			case 0:
				a.Seq += int64(r.Intn(3)) - 1 // a conflict, or a gap, or (at 0) a negative sequence
			case 1:
				if a.N > 1 {
					a.Bad = 1 + r.Intn(a.N) // an invalid envelope, maybe after valid ones
				}
			}
			for range a.N {
				a.Values = append(a.Values, r.Intn(len(values)))
				a.Meta = append(a.Meta, r.Intn(len(metas)))
			}
			if last != nil && op == "append" && r.Intn(6) == 0 {
				a = *last // the same envelopes again: a conflict, never an idempotent retry
			}
			// mostly fenced once a delete made the id's tokens stale (I-STORE-51, I-STORE-82)
			if r.Intn(2) == 0 || ref.model.current[a.ID] == -1 && r.Intn(4) != 0 {
				a.Fence = pick(r, ref.fenceOf, a.ID)
			}
			if op == "appendIfUnchanged" {
				if a.Anchor = pick(r, ref.anchorOf, a.ID); a.Anchor == 0 {
					return a, false
				}
			}
		case "readRange":
			a.From, a.Through = int64(r.Intn(5))-1, int64(r.Intn(6))-1
		case "acquireFenceIf":
			if r.Intn(4) != 0 {
				a.Fence = pick(r, ref.fenceOf, a.ID)
			}
		case "deleteThrough":
			a.Through = next - 1 - int64(r.Intn(3))
		case "copyPrefix":
			a.To, a.Through = id(), next-1-int64(r.Intn(3))
			if r.Intn(4) == 0 {
				a.Through = next + 1 // beyond the source: invalid
			}
		case "listExecutionsPage":
			a.Limit = 1 + r.Intn(3)
		}
		return a, true
	}
	// Steps made two at once (esAtOnce) come between the others, drawn from a source of their own,
	// so the walk of single steps draws what it drew before they existed.
	rt := rand.New(rand.NewSource(seed*7919 + int64(round) + 1<<40))
	var pairOps []string
	for _, op := range esAtOnce {
		if m := esOpMethod(op); m == "" || declared(m) {
			pairOps = append(pairOps, op)
		}
	}
	s := explore.Script{Check: "eventstore/explore", Seed: seed, Round: round}
	for made := 0; made < steps; {
		if len(pairOps) > 0 && rt.Intn(togetherEvery) == 0 {
			h := hot[rt.Intn(len(hot))] // both on one id
			st := explore.Step{Op: explore.Together}
			for client := 1; client <= 2; client++ {
				op := pairOps[rt.Intn(len(pairOps))]
				if a, ok := draw(rt, h, func() int { return hot[rt.Intn(len(hot))] }, op); ok {
					st.Together = append(st.Together, explore.Step{Client: client, Op: op, Args: explore.Args(a)})
				}
			}
			if len(st.Together) == 2 {
				for _, sub := range st.Together {
					_, _, _ = ref.step(ctx, base, ids, sub)
				}
				s.Steps = append(s.Steps, st)
			}
		}
		id := func() int { return hot[r.Intn(len(hot))] }
		first := id()
		op := ops[r.Intn(len(ops))]
		a, ok := draw(r, first, id, op)
		if !ok {
			continue
		}
		st := explore.Step{Op: op, Args: explore.Args(a)}
		_, _, _ = ref.step(ctx, base, ids, st)
		s.Steps = append(s.Steps, st)
		made++
		if op == "append" {
			last = &a
		}
	}
	return s
}

// exploreIDsAt is the ids a script names: exploreIDs below base, then the quarantine streams of
// base's chain.
func exploreIDsAt(base string) (string, []string) {
	var ids []string
	for _, sfx := range exploreIDs {
		if tail, long := strings.CutPrefix(sfx, "L"); long && len(sfx) == 2 {
			// ids of exactly spi.MaxIDBytes that differ in their last byte, and one past it
			n := spi.MaxIDBytes - len(base) - 2
			if tail == "3" {
				n += 9
			}
			sfx = "L" + strings.Repeat("x", max(n, 1)) + tail
		}
		ids = append(ids, base+sfx)
	}
	for _, q := range exploreQuarantine {
		ids = append(ids, q+base)
	}
	return base, ids
}

// esSide is one store a script is applied to, with the tokens and anchors it handed out. On the
// reference side, model follows what the reference accepted, to tell a call wrong in several ways.
type esSide struct {
	store    spi.EventStore
	values   []string // exploreValues
	metas    []string // exploreMetadata
	fences   []int64
	fenceOf  []int // the id each token was acquired for
	anchorOf []int // the id each anchor was observed on
	anchors  []spi.Anchor
	model    *esModel
}

// esModel is what the reference's answers so far say of each id: its next sequence and its
// current fence token.
type esModel struct {
	next    map[int]int64
	current map[int]int64
	stored  map[int]bool // whether the id holds at least one envelope
	// emptied: the id was deleted while it held nothing and no token, and no token was acquired
	// since (I-STORE-71's zone: whether that delete made a token current, or changed the anchor,
	// is the store's choice)
	emptied map[int]bool
}

// choice names the interpretation a step's answer rests on when the spec leaves it open (the step
// is in a choice's zone: a negative or inverted range, an unfenced append while a fence is current,
// a negative through, deleting an id with nothing stored, listing an id deleteThrough emptied), or
// "". A difference there is the target making another legal choice: the comparison cites the
// choice (a recommendation), and the script stops, since the two stores may now hold different
// states legitimately.
func (m *esModel) choice(x *esSide, st explore.Step) string {
	var a esArgs
	if json.Unmarshal(st.Args, &a) != nil {
		return ""
	}
	switch st.Op {
	case "readRange":
		if a.From < 0 || a.Through >= 0 && a.Through < a.From {
			return "I-STORE-66"
		}
	case "append", "appendIfUnchanged":
		if x.token(a.Fence) == 0 && m.current[a.ID] != 0 {
			return "I-STORE-67"
		}
		if st.Op == "appendIfUnchanged" && m.emptied[a.ID] {
			return "I-STORE-71"
		}
	case "deleteThrough":
		if a.Through < 0 {
			return "I-STORE-68"
		}

	case "copyPrefix":
		if m.next[a.To] > 0 && !m.stored[a.To] {
			return "I-STORE-52" // onto a target once written and now empty: a fresh one or already exists
		}
	case "deleteExecution":
		if !m.stored[a.ID] {
			return "I-STORE-71"
		}
	case "acquireFenceIf", "observe":
		if m.emptied[a.ID] {
			return "I-STORE-71"
		}
	case "listExecutionsPage":
		for id, n := range m.next {
			if n > 0 && !m.stored[id] {
				return "I-STORE-69"
			}
		}
	}
	return ""
}

// token is the k-th token the side acquired (from 1), or 0 (no fence) for none: a step that names
// a token its (shrunk) script never acquired appends unfenced.
func (x *esSide) token(k int) int64 {
	if k > 0 && k <= len(x.fences) {
		return x.fences[k-1]
	}
	return 0
}

// pick chooses one of the tokens or anchors the side acquired for id (of lists the id of each; a
// token or an anchor is one execution's), as its k counting from 1, or 0 when there is none. Of
// two or more, the latest two are the likeliest.
func pick(r *rand.Rand, of []int, id int) int {
	var ks []int
	for i, o := range of {
		if o == id {
			ks = append(ks, i+1)
		}
	}
	if len(ks) == 0 {
		return 0
	}
	if r.Intn(3) != 0 {
		return ks[len(ks)-1-r.Intn(min(len(ks), 2))]
	}
	return ks[r.Intn(len(ks))]
}

// newESReference is a fresh reference side with its model.
func newESReference() *esSide {
	return &esSide{store: memory.NewEventStore(), values: exploreValues(), metas: exploreMetadata(),
		model: &esModel{next: map[int]int64{}, current: map[int]int64{}, stored: map[int]bool{}, emptied: map[int]bool{}}}
}

// step applies st to the reference and follows its answer; it returns the answer, every refusal
// st could have had from the state before it, and the choice whose zone st is in ("" for none).
func (x *esSide) step(ctx context.Context, base string, ids []string, st explore.Step) (xAnswer, []string, string) {
	several, choice := x.model.refusals(x, st), x.model.choice(x, st)
	ans := x.apply(ctx, base, ids, st)
	x.model.follow(x, st, ans)
	return ans, several, choice
}

// refusals lists every refusal the reference could give step st from the state model describes
// (invalid argument, fenced, conflict): with two or more, which one a store reports is its choice
// (I-STORE-50).
func (m *esModel) refusals(x *esSide, st explore.Step) []string {
	var a esArgs
	if json.Unmarshal(st.Args, &a) != nil || (st.Op != "append" && st.Op != "appendIfUnchanged") {
		return nil
	}
	var out []string
	if a.Seq < 0 || a.Bad > 0 {
		out = append(out, "invalid argument")
	}
	if t := x.token(a.Fence); t != 0 && t != m.current[a.ID] {
		out = append(out, "fenced")
	}
	if a.Seq != m.next[a.ID] || st.Op == "appendIfUnchanged" {
		out = append(out, "conflict") // an anchor may no longer match: a conflict either way
	}
	return out
}

// follow updates the model with the reference's answer to st.
func (m *esModel) follow(x *esSide, st explore.Step, ans xAnswer) {
	var a esArgs
	if ans.refusal != "" || json.Unmarshal(st.Args, &a) != nil {
		return
	}
	switch st.Op {
	case "append", "appendIfUnchanged":
		m.next[a.ID] += int64(a.N)
		m.stored[a.ID] = true
	case "acquireFence", "acquireFenceIf":
		m.current[a.ID], m.emptied[a.ID] = x.fences[len(x.fences)-1], false
	case "copyPrefix":
		m.next[a.To], m.stored[a.To] = a.Through+1, a.Through >= 0
	case "deleteThrough":
		m.stored[a.ID] = m.stored[a.ID] && a.Through < m.next[a.ID]-1
	case "deleteExecution":
		// every token acquired before the delete is stale (I-STORE-51): none is current
		m.emptied[a.ID] = !m.stored[a.ID] && m.next[a.ID] == 0 && m.current[a.ID] == 0
		m.next[a.ID], m.stored[a.ID] = 0, false
		if m.current[a.ID] != 0 {
			m.current[a.ID] = -1
		}
	}
}

// xAnswer is one answer: the refusal's class ("" for success) and the value, as JSON.
type xAnswer struct {
	refusal string
	value   any
}

func (a xAnswer) String() string {
	if a.refusal != "" {
		return a.refusal
	}
	if a.value == nil {
		return "ok"
	}
	b, _ := json.Marshal(a.value)
	return clipS(string(b))
}

// refusalOf classes an error as the kits compare refusals.
func refusalOf(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, spi.ErrInvalidArgument):
		return "invalid argument"
	case errors.Is(err, spi.ErrFenced):
		return "fenced"
	case errors.Is(err, spi.ErrConflict):
		return "conflict"
	case errors.Is(err, spi.ErrAlreadyExists):
		return "already exists"
	case errors.Is(err, spi.ErrNotFound):
		return "not found"
	case errors.Is(err, spi.ErrLeaseLost):
		return "lease lost"
	case errors.Is(err, spi.ErrUnknownTarget):
		return "unknown target"
	}
	return "error " + err.Error()
}

// apply makes step st on side x; ids maps the script's id indices to this replay's ids, which all
// begin with base.
func (x *esSide) apply(ctx context.Context, base string, ids []string, st explore.Step) xAnswer {
	var a esArgs
	if err := json.Unmarshal(st.Args, &a); err != nil || a.ID < 0 || a.ID >= len(ids) || a.To < 0 || a.To >= len(ids) {
		return xAnswer{refusal: "bad step"}
	}
	id := ids[a.ID]
	fence := func() int64 { return x.token(a.Fence) }
	envs := func() []spi.Envelope {
		out := make([]spi.Envelope, a.N)
		for i := range out {
			out[i] = env(id, a.Seq+int64(i), "x")
			if i < len(a.Values) && a.Values[i] >= 0 && a.Values[i] < len(x.values) {
				out[i].Payload = json.RawMessage(x.values[a.Values[i]])
			}
			if i < len(a.Meta) && a.Meta[i] > 0 && a.Meta[i] < len(x.metas) {
				out[i].Metadata = json.RawMessage(x.metas[a.Meta[i]])
			}
			if i+1 == a.Bad {
				out[i].ExecutionID = id + "-other"
			}
		}
		return out
	}
	switch st.Op {
	case "append":
		return xAnswer{refusal: refusalOf(x.store.Append(ctx, id, envs(), spi.AppendOptions{Fence: fence()}))}
	case "appendIfUnchanged":
		ca, ok := x.store.(spi.ConditionalAppender)
		if !ok || a.Anchor <= 0 || a.Anchor > len(x.anchors) {
			return xAnswer{refusal: "bad step"}
		}
		return xAnswer{refusal: refusalOf(ca.AppendIfUnchanged(ctx, id, x.anchors[a.Anchor-1], envs(), spi.AppendOptions{Fence: fence()}))}
	case "read":
		got, err := x.store.Read(ctx, id)
		return xAnswer{refusal: refusalOf(err), value: nonNil(got)}
	case "readRange":
		got, err := x.store.(spi.RangeReader).ReadRange(ctx, id, a.From, a.Through)
		return xAnswer{refusal: refusalOf(err), value: nonNil(got)}
	case "acquireFence":
		f, err := x.store.(spi.Fencer).AcquireFence(ctx, id)
		x.fences, x.fenceOf = append(x.fences, f.Token), append(x.fenceOf, a.ID)
		return xAnswer{refusal: refusalOf(err)}
	case "acquireFenceIf":
		f, err := x.store.(spi.ConditionalFencer).AcquireFenceIf(ctx, id, fence())
		x.fences, x.fenceOf = append(x.fences, f.Token), append(x.fenceOf, a.ID)
		return xAnswer{refusal: refusalOf(err)}
	case "observe":
		an, err := x.store.(spi.ConditionalAppender).Observe(ctx, id)
		x.anchors, x.anchorOf = append(x.anchors, an), append(x.anchorOf, a.ID)
		return xAnswer{refusal: refusalOf(err)}
	case "deleteThrough":
		return xAnswer{refusal: refusalOf(x.store.(spi.ThroughDeleter).DeleteThrough(ctx, id, a.Through))}
	case "copyPrefix":
		return xAnswer{refusal: refusalOf(x.store.(spi.PrefixCopier).CopyPrefix(ctx, id, ids[a.To], a.Through))}
	case "deleteExecution":
		return xAnswer{refusal: refusalOf(x.store.(spi.ExecutionDeleter).DeleteExecution(ctx, id))}
	case "listExecutionsPage":
		got, err := listMine(ctx, x.store.(spi.ExecutionLister), base, ids, a.Limit)
		return xAnswer{refusal: refusalOf(err), value: got}
	}
	return xAnswer{refusal: "bad step"}
}

// listMine enumerates the pages at limit from just before this replay's ids to just after them
// (the target may hold other executions) and returns the positions of the ids listed, in order.
func listMine(ctx context.Context, l spi.ExecutionLister, base string, ids []string, limit int) ([]int, error) {
	out := []int{}
	cursor := base
	for range 10_000 {
		p, err := l.ListExecutionsPage(ctx, cursor, limit)
		if err != nil {
			return out, err
		}
		if len(p.ExecutionIDs) > limit {
			return out, fmt.Errorf("a page of %d ids at limit %d", len(p.ExecutionIDs), limit)
		}
		for _, id := range p.ExecutionIDs {
			if i := slices.Index(ids, id); i >= 0 {
				out = append(out, i)
			} else if id > base && !strings.HasPrefix(id, base) {
				return out, nil // past this replay's ids
			}
		}
		if p.Next == "" {
			return out, nil
		}
		cursor = p.Next
	}
	return out, errors.New("listExecutionsPage: 10 000 pages without an end")
}

// esReplay applies s to the target and to a fresh reference, with this replay's own ids, and
// returns the first answer where they part.
func esReplay(c *EventStoreCase) explore.Replay {
	return func(ctx context.Context, s explore.Script) (*explore.Mismatch, error) {
		base, ids := exploreIDsAt(c.ExecID("x") + "~")
		refs := newOracle(func(applied []explore.Step) *esSide {
			ref := newESReference()
			for _, a := range applied {
				_, _, _ = ref.step(ctx, base, ids, a)
			}
			return ref
		})
		target := &esSide{store: c.Store, values: refs.cands[0].ref.values, metas: refs.cands[0].ref.metas}
		for i, st := range s.Steps {
			var m *explore.Mismatch
			var tooLong bool
			tgtRead := readOnce(func(read explore.Step) xAnswer { return target.apply(ctx, base, ids, read) })
			if st.Op == explore.Together {
				got := atOnce(st, func(sub explore.Step) xAnswer { return target.apply(ctx, base, ids, sub) }, c.Recover)
				m, tooLong = refs.together(st, func(sub explore.Step) bool { return len(esTouched(sub)) > 0 }, func(ref *esSide, order []explore.Step, perm []int) (*explore.Mismatch, bool) {
					var m *explore.Mismatch
					for i, sub := range order {
						want, several, choice := ref.step(ctx, base, ids, sub)
						if esRefusedTooLong(sub, ids, want, got[perm[i]]) {
							return nil, true
						}
						if m == nil {
							if m = esAnswer(sub, want, got[perm[i]], several, choice); m != nil {
								m.Args = esShowArgs(sub, ids)
							}
						}
					}
					for _, sub := range order {
						if m != nil {
							break
						}
						if m = esReadBack(ctx, base, ids, ref, tgtRead, sub); m != nil {
							m.Args = esShowArgs(sub, ids)
						}
					}
					return m, false
				})
			} else {
				got := target.apply(ctx, base, ids, st)
				m, tooLong = refs.step(st, func(ref *esSide) (*explore.Mismatch, bool) {
					want, several, choice := ref.step(ctx, base, ids, st)
					if esRefusedTooLong(st, ids, want, got) {
						return nil, true
					}
					if m := esAnswer(st, want, got, several, choice); m != nil {
						return m, false
					}
					return esReadBack(ctx, base, ids, ref, tgtRead, st), false
				})
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if tooLong {
				return nil, nil // a name past spi.MaxIDBytes may be refused (I-STORE-80)
			}
			if m != nil {
				m.Step = i
				if m.Args == "" {
					m.Args = esShowArgs(st, ids)
				}
				return m, nil
			}
		}
		return nil, nil
	}
}

func esRefusedTooLong(st explore.Step, ids []string, want, got xAnswer) bool {
	return got.refusal == "invalid argument" && want.refusal == "" && esTooLong(st, ids)
}

// esAnswer compares one answer; a difference in a choice's zone cites the choice.
func esAnswer(st explore.Step, want, got xAnswer, several []string, choice string) *explore.Mismatch {
	m := esCompare(st, want, got, several)
	if m != nil && choice != "" && !slices.Equal(m.Clauses, []string{"I-STORE-25"}) {
		m.Clauses = []string{choice} // the answer rests on the choice
	}
	return m
}

// esReadBack reads back, on both sides, the logs write step st may have changed.
func esReadBack(ctx context.Context, base string, ids []string, ref *esSide, tgtRead func(explore.Step) xAnswer, st explore.Step) *explore.Mismatch {
	for _, touched := range esTouched(st) {
		read := explore.Step{Op: "read", Args: explore.Args(esArgs{ID: touched})}
		if m := esCompare(read, ref.apply(ctx, base, ids, read), tgtRead(read), nil); m != nil {
			m.Op = st.Op + " then read"
			if !slices.Equal(m.Clauses, []string{"I-STORE-25"}) {
				m.Clauses = esExploreClauses[st.Op]
			}
			return m
		}
	}
	return nil
}

// esTooLong reports whether a step names an id past spi.MaxIDBytes.
func esTooLong(st explore.Step, ids []string) bool {
	var a esArgs
	_ = json.Unmarshal(st.Args, &a)
	for _, i := range []int{a.ID, a.To} {
		if i >= 0 && i < len(ids) && len(ids[i]) > spi.MaxIDBytes {
			return true
		}
	}
	return false
}

// esTouched lists the ids a write step may have changed (none for a read).
func esTouched(st explore.Step) []int {
	var a esArgs
	if json.Unmarshal(st.Args, &a) != nil {
		return nil
	}
	switch st.Op {
	case "append", "appendIfUnchanged", "deleteThrough", "deleteExecution":
		return []int{a.ID}
	case "copyPrefix":
		return []int{a.ID, a.To}
	}
	return nil
}

// esCompare compares one answer: a refusal that differs, or a value that differs. Two refusals of
// a call wrong in several ways that differ only in which is reported cite the order of refusals
// (I-STORE-50, a choice); values equal once numbers are read as doubles cite exact numbers
// (I-STORE-25, a choice); everything else cites the operation's clauses.
func esCompare(st explore.Step, want, got xAnswer, several []string) *explore.Mismatch {
	clauses := esExploreClauses[st.Op]
	if want.refusal != got.refusal {
		switch {
		case len(several) > 1 && slices.Contains(several, want.refusal) && slices.Contains(several, got.refusal):
			clauses = []string{"I-STORE-50"}
		case got.refusal == "fenced" || want.refusal == "fenced":
			clauses = append(slices.Clone(clauses), "S6.fencing.zombie")
		}
		return &explore.Mismatch{Op: st.Op, Got: got.String(), Want: want.String(), Clauses: clauses}
	}
	wb, _ := json.Marshal(want.value)
	gb, _ := json.Marshal(got.value)
	if want.refusal != "" || spi.SameJSON(wb, gb) || sameEnvelopes(want.value, got.value, spi.SameEnvelope) {
		return nil
	}
	if w, ok := want.value.([]int); ok && st.Op == "listExecutionsPage" && sameSet(w, got.value.([]int)) {
		// the same ids in another order: byte order is our choice (I-STORE-28)
		return &explore.Mismatch{Op: st.Op, Got: got.String(), Want: want.String(), Clauses: []string{"I-STORE-28"}}
	}
	if sameEnvelopes(want.value, got.value, sameEnvelopeAsDoubles) {
		clauses = []string{"I-STORE-25"}
	}
	return &explore.Mismatch{Op: st.Op, Got: got.String(), Want: want.String(), Clauses: clauses,
		Diff: cmp.Diff(want.value, got.value, envCmp)}
}

// sameSet reports whether a and b hold the same ids, each as often.
func sameSet(a, b []int) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func sameEnvelopes(a, b any, same func(x, y spi.Envelope) bool) bool {
	x, ok1 := a.([]spi.Envelope)
	y, ok2 := b.([]spi.Envelope)
	return ok1 && ok2 && slices.EqualFunc(x, y, same)
}

// sameEnvelopeAsDoubles is spi.SameEnvelope with every number read as a double.
func sameEnvelopeAsDoubles(a, b spi.Envelope) bool {
	a.Payload, a.Metadata = asDoubles(a.Payload), asDoubles(a.Metadata)
	b.Payload, b.Metadata = asDoubles(b.Payload), asDoubles(b.Metadata)
	return spi.SameEnvelope(a, b)
}

func asDoubles(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

// esShowArgs is a step's arguments with ids written out.
func esShowArgs(st explore.Step, ids []string) string {
	var a esArgs
	_ = json.Unmarshal(st.Args, &a)
	s := fmt.Sprintf("%q", clipS(ids[min(max(a.ID, 0), len(ids)-1)]))
	if st.Op == "copyPrefix" {
		s += fmt.Sprintf(", %q", clipS(ids[min(max(a.To, 0), len(ids)-1)]))
	}
	return s + " " + string(st.Args)
}

// esExplore runs c.Explore scripts against the target and the reference. The first disagreement
// that cites a required clause is shrunk and reported with its script; a disagreement that cites
// only a choice (the target made another legal choice) ends its script only, and the first such
// is reported when no required one is found.
func esExplore(ctx context.Context, c *EventStoreCase) error {
	declared := func(m string) bool { return spi.Has(manifest.SeamEventStore, c.Store, m) }
	return exploreRounds(ctx, c, esReplay(c), func(round int) explore.Script { return esGen(ctx, c.Seed, round, 30, declared) })
}

// exploreRounds runs c.Explore scripts made by gen through replay (see esExplore).
func exploreRounds[T any](ctx context.Context, c *Case[T], replay explore.Replay, gen func(round int) explore.Script) error {
	if s := c.explore.replay; s != nil {
		// one given script, as it is: the same disagreement, or none any more
		c.Progress(0, 1)
		m, err := replay(ctx, *s)
		if err != nil || m == nil {
			c.Progress(1, 1)
			return err
		}
		return explored(c, explore.Finding{Script: *s, Mismatch: *m})
	}
	var recommended *explore.Finding
	for round := range c.Explore {
		c.Progress(round, c.Explore)
		s := gen(round)
		m, err := replay(ctx, s)
		if err != nil {
			return err
		}
		if m == nil || recommended != nil && spec.RequirementOf(m.Clauses) == spec.Recommended {
			continue
		}
		small, sm, tried, err := explore.Shrink(ctx, s, m, replay, 200)
		if err != nil {
			return err
		}
		f := explore.Finding{Script: small, Mismatch: *sm, Tried: tried}
		if spec.RequirementOf(sm.Clauses) == spec.Required {
			return explored(c, f)
		}
		recommended = &f
	}
	c.Progress(c.Explore, c.Explore)
	if recommended != nil {
		return explored(c, *recommended)
	}
	return nil
}
