package kits

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// The BranchRegistry's exploration (branchregistry/explore): registrations, re-registrations of
// the same and of different branches, cycles and listings of children, over ids and parents that
// differ by a delimiter, a case, a normal form, a prefix or a long tail, with metadata from the
// round-trip corpus, against the in-memory reference. Every script registers a root first, so the
// branches it names have a registered parent (an unregistered parent is I-STORE-54's choice).

func brExplore() xSeam[spi.BranchRegistry] {
	ids := []string{"I-STORE-4", "I-STORE-27", "I-STORE-80"}
	with := func(cs ...string) []string { return append(cs, ids...) }
	return xSeam[spi.BranchRegistry]{
		check: "branchregistry/explore", seam: manifest.SeamBranchRegistry, steps: 24, seed: "register", precision: "I-STORE-25",
		ops: []xOp{
			{"register", "", 6, with("I-STORE-20")},
			{"get", "", 4, with("I-STORE-20")},
			{"listChildren", "", 3, with("I-STORE-20")},
		},
		extra:     []string{"I-STORE-25", "I-STORE-28", "I-STORE-29", "I-STORE-54", "I-STORE-56", "I-STORE-72"},
		order:     map[string]string{"listChildren": "I-STORE-28"},
		reference: func() spi.BranchRegistry { return memory.NewBranchRegistry() },
		side: func(s spi.BranchRegistry, ids []string, ref bool) xSide {
			return &brxSide{store: s, ids: ids, values: exploreValuesNoNul(), reg: map[int]xArgs{}}
		},
		args:    brxArgsFor,
		touched: xReadBack("get", "register"),
		names:   xNames,
		atOnce:  []string{"register", "get"},
	}
}

// brBigForks are fork sequences past a SMALLINT, an INT, a double's integers and near int64's end.
var brBigForks = []int64{32767, 32768, 1 << 31, 1<<53 + 1, 1<<63 - 1}

// brRoot is the index of the root every script registers first, and of its parent.
const brRoot, brRootParent = -2, -3

type brxSide struct {
	store  spi.BranchRegistry
	ids    []string
	values []string
	reg    map[int]xArgs // the registrations the reference accepted, by id
}

func (x *brxSide) name(i int) (string, bool) {
	switch i {
	case brRoot:
		return x.ids[0] + "~root", true
	case brRootParent:
		return x.ids[0] + "~above-root", true
	}
	return xName(x.ids, i)
}

func brxArgsFor(r *rand.Rand, ref xSide, id func() int, op string) (any, bool) {
	x := ref.(*brxSide)
	a := xArgs{ID: id()}
	switch op {
	case "register":
		if _, ok := x.reg[brRoot]; !ok {
			return xArgs{ID: brRoot, To: brRootParent, Value: 0}, true
		}
		if old, ok := x.reg[a.ID]; ok {
			a = old // the same branch again
			switch r.Intn(4) {
			case 0:
				a.Seq ^= 1 // or another under the same id
			case 1:
				a.Flag = !a.Flag // its metadata spelled otherwise
			case 2:
				a.Value = twinOf(x.values, a.Value) // metadata a double cannot tell apart
			}
			return a, true
		}
		a.To, a.Seq, a.Value = brRoot, int64(r.Intn(5)), r.Intn(len(x.values))
		if r.Intn(5) == 0 {
			a.Seq = brBigForks[r.Intn(len(brBigForks))]
		}
		var parents []int
		for k := range x.reg {
			parents = append(parents, k)
		}
		slices.Sort(parents)
		switch n := r.Intn(3); {
		case n == 1 && len(parents) > 0:
			a.To = parents[r.Intn(len(parents))]
		case n == 2:
			a.To = id() // maybe unregistered, so a later branch closes a cycle through it, or itself
		}
	case "listChildren":
		if r.Intn(3) == 0 {
			a.ID = brRoot
		}
	}
	return a, true
}

func (x *brxSide) choice(st explore.Step) string {
	a := xArgsOf(st)
	if st.Op != "register" {
		return ""
	}
	if _, taken := x.reg[a.ID]; taken && (a.To == a.ID || a.To == -1 || a.Seq < 0) {
		return "I-STORE-56" // invalid and the id taken: invalid argument first is ours
	}
	if old, ok := x.reg[a.ID]; ok {
		same := old
		same.Flag = a.Flag
		switch {
		case same == a:
			return "I-STORE-72" // the same branch again (maybe respelled): success is recommended
		case same.Value != a.Value && (x.values[a.Value] == exploreTwins[0] || x.values[a.Value] == exploreTwins[1]):
			return "I-STORE-29" // equality by value, exact beyond a double: ours
		}
	}
	if _, ok := x.reg[a.To]; !ok && a.To != a.ID || a.Seq > 4 {
		return "I-STORE-54" // an unregistered parent, a fork past any log: accepting it is recommended
	}
	return ""
}

func (x *brxSide) follow(st explore.Step, ans xAnswer) {
	if a := xArgsOf(st); st.Op == "register" && ans.refusal == "" {
		if _, ok := x.reg[a.ID]; !ok {
			x.reg[a.ID] = a
		}
	}
}

func (x *brxSide) apply(ctx context.Context, st explore.Step) xAnswer {
	a := xArgsOf(st)
	id, ok := x.name(a.ID)
	if !ok {
		return xAnswer{refusal: "bad step"}
	}
	switch st.Op {
	case "register":
		parent, ok := x.name(a.To)
		if !ok || a.Value < 0 || a.Value >= len(x.values) {
			return xAnswer{refusal: "bad step"}
		}
		meta := json.RawMessage(fmt.Sprintf(`{"m":%s}`, x.values[a.Value]))
		if a.Flag {
			meta = respell(meta)
		}
		return xAnswer{refusal: refusalOf(x.store.Register(ctx, spi.Branch{ID: id, ParentID: parent, ForkSequence: a.Seq, Metadata: meta}))}
	case "get":
		b, err := x.store.Get(ctx, id)
		if err != nil {
			return xAnswer{refusal: refusalOf(err)}
		}
		return xAnswer{value: b}
	case "listChildren":
		bs, err := x.store.ListChildren(ctx, id)
		if bs == nil {
			bs = []spi.Branch{}
		}
		return xAnswer{refusal: refusalOf(err), value: bs}
	}
	return xAnswer{refusal: "bad step"}
}
