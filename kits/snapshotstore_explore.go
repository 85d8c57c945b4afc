package kits

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// The SnapshotStore's exploration (snapshotstore/explore): saves, re-saves, deletes and prunes of
// ids that differ by a delimiter, a case, a normal form, a prefix or a long tail, with states from
// the round-trip corpus, against the in-memory reference.

func ssExplore() xSeam[spi.SnapshotStore] {
	ids := []string{"I-STORE-4", "I-STORE-27", "I-STORE-80"}
	with := func(cs ...string) []string { return append(cs, ids...) }
	return xSeam[spi.SnapshotStore]{
		check: "snapshotstore/explore", seam: manifest.SeamSnapshotStore, steps: 24, seed: "save", precision: "I-STORE-25",
		ops: []xOp{
			{"save", "", 6, with("I-STORE-15", "I-STORE-32")},
			{"loadLatest", "", 4, with("I-STORE-15")},
			{"loadLatestSealed", spi.MethodLoadLatestSealed, 2, with("S7.ss.load-latest-sealed", "I-STORE-16")},
			{"listSequences", spi.MethodListSequences, 2, with("S7.ss.list-sequences")},
			{"pruneSnapshots", spi.MethodPruneSnapshots, 1, with("S7.ss.prune-range", "I-STORE-17")},
			{"deleteExecution", spi.MethodDeleteExecution, 1, with("S7.ss.delete-execution")},
		},
		extra:     []string{"I-STORE-25", "I-STORE-66"},
		reference: func() spi.SnapshotStore { return memory.NewSnapshotStore() },
		side: func(s spi.SnapshotStore, ids []string, ref bool) xSide {
			return &ssxSide{store: s, ids: ids, values: exploreValuesNoNul()}
		},
		args:    ssxArgsFor,
		touched: xReadBack("loadLatest", "save", "pruneSnapshots", "deleteExecution"),
		names:   xNames,
		atOnce:  []string{"save", "loadLatest", "deleteExecution"},
	}
}

// xArgs are the arguments of one step of the seams explored by xSeam: ids are indices into the
// replay's names, values into its values.
type xArgs struct {
	ID      int   `json:"id"`
	To      int   `json:"to,omitempty"`
	Seq     int64 `json:"seq,omitempty"`
	Value   int   `json:"value,omitempty"`
	Flag    bool  `json:"flag,omitempty"`
	From    int64 `json:"from,omitempty"`
	Through int64 `json:"through,omitempty"`
	Limit   int   `json:"limit,omitempty"`
	Version int64 `json:"version,omitempty"`
	Cond    bool  `json:"cond,omitempty"`
	Worker  int   `json:"worker,omitempty"`
	Key     int   `json:"key,omitempty"`
}

func xArgsOf(st explore.Step) xArgs {
	var a xArgs
	_ = json.Unmarshal(st.Args, &a)
	return a
}

// xName is the name at index i of ids, -1 being the empty name (an invalid argument).
func xName(ids []string, i int) (string, bool) {
	if i == -1 {
		return "", true
	}
	if i < 0 || i >= len(ids) {
		return "", false
	}
	return ids[i], true
}

// xNames are the ids a step of xArgs names.
func xNames(st explore.Step) []int {
	a := xArgsOf(st)
	if a.To != 0 {
		return []int{a.ID, a.To}
	}
	return []int{a.ID}
}

// xReadBack is the touched function of a seam whose writes (every operation but read, or those
// listed) show in read: every id the script named so far is read back.
func xReadBack(read string, writes ...string) func(explore.Step, []int) []explore.Step {
	return func(st explore.Step, named []int) []explore.Step {
		if st.Op == read || (len(writes) > 0 && !containsS(writes, st.Op)) {
			return nil
		}
		var out []explore.Step
		for _, id := range named {
			out = append(out, explore.Step{Op: read, Args: explore.Args(xArgs{ID: id})})
		}
		return out
	}
}

func containsS(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

type ssxSide struct {
	store  spi.SnapshotStore
	ids    []string
	values []string
	saved  map[int]int64 // the reference's highest sequence per id, for the generator
	last   map[int]xArgs // the reference's last save per id
}

func ssxArgsFor(r *rand.Rand, ref xSide, id func() int, op string) (any, bool) {
	x := ref.(*ssxSide)
	a := xArgs{ID: id()}
	switch op {
	case "save":
		a.Seq = max(x.saved[a.ID]+int64(r.Intn(3))-1, 0) // a re-save, the next or one further
		if r.Intn(4) == 0 {
			a.Seq += int64(r.Intn(6)) // or a jump past other ids' sequences
		}
		a.Value, a.Flag, a.Key = r.Intn(len(x.values)), r.Intn(2) == 0, r.Intn(3)
		if last, ok := x.last[a.ID]; ok && a.Seq == x.saved[a.ID] && r.Intn(2) == 0 {
			a.Value, a.Key = twinOf(x.values, last.Value), last.Key // the same state but for the decimals
		}
	case "pruneSnapshots":
		a.From, a.Through = int64(r.Intn(4)), int64(r.Intn(5))
		if r.Intn(3) != 0 { // aimed at what the id holds: its latest sequence and a few below
			a.Through = x.saved[a.ID]
			a.From = max(a.Through-int64(r.Intn(3)), 0)
		}
	}
	return a, true
}

func (x *ssxSide) choice(st explore.Step) string {
	if a := xArgsOf(st); st.Op == "pruneSnapshots" && a.From > a.Through {
		return "I-STORE-66"
	}
	return ""
}

func (x *ssxSide) follow(st explore.Step, ans xAnswer) {
	if x.saved == nil {
		x.saved = map[int]int64{}
	}
	if x.last == nil {
		x.last = map[int]xArgs{}
	}
	if a := xArgsOf(st); st.Op == "save" && ans.refusal == "" {
		x.saved[a.ID], x.last[a.ID] = max(a.Seq, x.saved[a.ID]), a
	}
}

func (x *ssxSide) apply(ctx context.Context, st explore.Step) xAnswer {
	a := xArgsOf(st)
	if a.ID < 0 || a.ID >= len(x.ids) {
		return xAnswer{refusal: "bad step"}
	}
	id := x.ids[a.ID]
	snapOf := func(s spi.Snapshot, err error) xAnswer {
		if err != nil {
			return xAnswer{refusal: refusalOf(err)}
		}
		return xAnswer{value: map[string]any{"executionId": s.ExecutionID, "sequence": s.Sequence, "sealed": s.Sealed, "state": s.State}}
	}
	switch st.Op {
	case "save": // the state is an object (spi.ValidateSnapshot) holding the value under one of three keys
		if a.Value < 0 || a.Value >= len(x.values) {
			return xAnswer{refusal: "bad step"}
		}
		return xAnswer{refusal: refusalOf(x.store.Save(ctx, spi.Snapshot{ExecutionID: id, Sequence: a.Seq, Sealed: a.Flag, State: json.RawMessage(fmt.Sprintf(`{"v%d":%s}`, a.Key, x.values[a.Value]))}))}
	case "loadLatest":
		return snapOf(x.store.LoadLatest(ctx, id))
	case "loadLatestSealed":
		if l, ok := x.store.(spi.SealedLoader); ok {
			return snapOf(l.LoadLatestSealed(ctx, id))
		}
	case "listSequences":
		if l, ok := x.store.(spi.SequenceLister); ok {
			got, err := l.ListSequences(ctx, id)
			return xAnswer{refusal: refusalOf(err), value: nonNilSeqs(got)}
		}
	case "pruneSnapshots":
		if p, ok := x.store.(spi.SnapshotPruner); ok {
			got, err := p.PruneSnapshots(ctx, id, spi.SeqRange{From: a.From, Through: a.Through})
			return xAnswer{refusal: refusalOf(err), value: nonNilSeqs(got)}
		}
	case "deleteExecution":
		if d, ok := x.store.(spi.SnapshotDeleter); ok {
			return xAnswer{refusal: refusalOf(d.DeleteExecution(ctx, id))}
		}
	}
	return xAnswer{refusal: "bad step"}
}
