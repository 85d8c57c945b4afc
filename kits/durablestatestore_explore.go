package kits

import (
	"context"
	"encoding/json"
	"math/rand"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// The DurableStateStore's exploration (durablestatestore/explore): sets, conditional sets and
// deletes, deletes and re-creates of keys that differ by a delimiter, a case, a normal form, a
// prefix or a long tail, values from the round-trip corpus, against the in-memory reference.
// Versions are each store's own numbers: a side names them by the order it first saw them (its
// k-th version), so two stores agree when they hand out and honour versions alike; a version must
// also exceed every version its key had, across deletes.

func dsExplore() xSeam[spi.DurableStateStore] {
	ids := []string{"I-PLUGIN-14", "I-STORE-4", "I-STORE-80"}
	with := func(cs ...string) []string { return append(cs, ids...) }
	return xSeam[spi.DurableStateStore]{
		check: "durablestatestore/explore", seam: manifest.SeamDurableStateStore, steps: 24, seed: "set", precision: "I-STORE-25",
		ops: []xOp{
			{"set", "", 6, with("S7.plugin.pinned", "I-PLUGIN-5", "I-PLUGIN-6", "I-PLUGIN-7", "I-PLUGIN-15")},
			{"get", "", 4, with("I-PLUGIN-7", "I-PLUGIN-6")},
			{"delete", "", 2, with("S7.plugin.pinned", "I-PLUGIN-5", "I-PLUGIN-6")},
		},
		extra:     []string{"I-STORE-25", "I-PLUGIN-18", "I-STORE-56"},
		reference: func() spi.DurableStateStore { return memory.NewDurableStateStore() },
		side: func(s spi.DurableStateStore, ids []string, ref bool) xSide {
			return &dsxSide{store: s, ids: ids, values: exploreValuesNoNul(), current: map[int]int{}, last: map[int]int{}}
		},
		args:    dsxArgsFor,
		touched: xReadBack("get", "set", "delete"),
		names:   xNames,
	}
}

type dsxSide struct {
	store    spi.DurableStateStore
	ids      []string
	values   []string
	versions []int64     // every version seen, in the order first seen: the k-th is k (from 1)
	ofKey    []int       // the key of each
	current  map[int]int // the key's current version, as its k (0: absent), as the answers say
	last     map[int]int // the value index the key was last set to
}

func dsxArgsFor(r *rand.Rand, ref xSide, id func() int, op string) (any, bool) {
	x := ref.(*dsxSide)
	a := xArgs{ID: id()}
	if op == "get" {
		return a, true
	}
	if a.Cond = r.Intn(2) == 0; a.Cond {
		var mine []int
		for i, k := range x.ofKey {
			if k == a.ID {
				mine = append(mine, i+1)
			}
		}
		switch n := r.Intn(4); {
		case n < 2:
			a.Version = int64(x.current[a.ID]) // the version it is at (0: absent)
		case n == 2 && len(mine) > 0:
			a.Version = int64(mine[r.Intn(len(mine))]) // one it had, maybe before a delete
		}
	}
	if r.Intn(12) == 0 {
		a.ID = -1 // the empty key: an invalid argument
	}
	if op == "set" {
		a.Value = r.Intn(len(x.values))
		a.Flag = r.Intn(12) == 0 // a value that is not JSON: an invalid argument
		if last, ok := x.last[a.ID]; ok && r.Intn(3) == 0 {
			a.Value = twinOf(x.values, last) // the same value but for the decimals
		}
	}
	return a, true
}

// version is the k of v for key (adding it when new) and whether v exceeds every version of key
// seen before.
func (x *dsxSide) version(key int, v int64) (int, bool) {
	greater := true
	for i, w := range x.versions {
		if x.ofKey[i] == key {
			if w == v {
				return i + 1, false
			}
			greater = greater && v > w
		}
	}
	x.versions, x.ofKey = append(x.versions, v), append(x.ofKey, key)
	return len(x.versions), greater
}

func (x *dsxSide) pre(a xArgs) spi.Precondition {
	switch {
	case !a.Cond:
		return spi.Precondition{}
	case a.Version == 0:
		return spi.IfVersion(0)
	case a.Version > 0 && int(a.Version) <= len(x.versions):
		return spi.IfVersion(x.versions[a.Version-1])
	}
	return spi.IfVersion(1 << 40) // a version the script never saw: never held
}

func (x *dsxSide) choice(st explore.Step) string {
	a := xArgsOf(st)
	invalid := a.ID < 0 || st.Op == "set" && a.Flag
	switch {
	case invalid && a.Cond && a.Version != int64(x.current[a.ID]):
		return "I-STORE-56" // invalid and in conflict: which is reported first is our choice
	case !invalid && st.Op == "delete" && !a.Cond && x.current[a.ID] == 0:
		return "I-PLUGIN-18" // deleting an absent key: success is recommended
	}
	return ""
}

func (x *dsxSide) follow(st explore.Step, ans xAnswer) {
	a := xArgsOf(st)
	if ans.refusal != "" {
		return
	}
	switch st.Op {
	case "set":
		if m, ok := ans.value.(map[string]any); ok {
			x.current[a.ID], x.last[a.ID] = m["version"].(int), a.Value
		}
	case "delete":
		x.current[a.ID] = 0
	}
}

func (x *dsxSide) apply(ctx context.Context, st explore.Step) xAnswer {
	a := xArgsOf(st)
	key, ok := xName(x.ids, a.ID)
	if !ok {
		return xAnswer{refusal: "bad step"}
	}
	switch st.Op {
	case "get":
		e, err := x.store.Get(ctx, key)
		if err != nil {
			return xAnswer{refusal: refusalOf(err)}
		}
		k, _ := x.version(a.ID, e.Version)
		return xAnswer{value: map[string]any{"key": e.Key, "value": e.Value, "version": k}}
	case "set":
		if a.Value < 0 || a.Value >= len(x.values) {
			return xAnswer{refusal: "bad step"}
		}
		value := json.RawMessage(x.values[a.Value])
		if a.Flag {
			value = value[:len(value)-1] // cut short: not JSON
		}
		v, err := x.store.Set(ctx, key, value, x.pre(a))
		if err != nil {
			return xAnswer{refusal: refusalOf(err)}
		}
		k, greater := x.version(a.ID, v)
		return xAnswer{value: map[string]any{"version": k, "greaterThanEveryEarlier": greater}}
	case "delete":
		return xAnswer{refusal: refusalOf(x.store.Delete(ctx, key, x.pre(a)))}
	}
	return xAnswer{refusal: "bad step"}
}
