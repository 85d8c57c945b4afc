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

// The ReadModelStore's exploration (readmodelstore/explore): upserts and re-upserts of documents
// whose models and ids differ by a delimiter, a case, a normal form, a prefix or a long tail, with
// documents from the round-trip corpus, and queries paged to their end at small limits, against the
// in-memory reference. A query's answer is every document of the model in page order and the size
// of each page (cursors are each store's own).

func rmExplore() xSeam[spi.ReadModelStore] {
	ids := []string{"I-PLUGIN-14", "I-STORE-4", "I-STORE-80"}
	with := func(cs ...string) []string { return append(cs, ids...) }
	return xSeam[spi.ReadModelStore]{
		check: "readmodelstore/explore", seam: manifest.SeamReadModelStore, steps: 24, seed: "upsert", precision: "I-STORE-25",
		ops: []xOp{
			{"upsert", "", 6, with("S7.plugin.pinned", "I-PLUGIN-7", "I-PLUGIN-10", "I-PLUGIN-15")},
			{"query", "", 4, with("S7.plugin.pinned", "I-PLUGIN-8", "I-PLUGIN-9", "I-PLUGIN-10")},
			{"firstPage", "", 3, with("S7.plugin.pinned", "I-PLUGIN-8", "I-PLUGIN-9", "I-PLUGIN-10")},
			{"nextPage", "", 4, with("S7.plugin.pinned", "I-PLUGIN-9", "I-PLUGIN-10")},
		},
		extra:     []string{"I-STORE-25", "I-STORE-28", "I-PLUGIN-19"},
		order:     map[string]string{"query": "I-STORE-28", "firstPage": "I-STORE-28", "nextPage": "I-STORE-28"},
		reference: func() spi.ReadModelStore { return memory.NewReadModelStore() },
		side: func(s spi.ReadModelStore, ids []string, ref bool) xSide {
			return &rmxSide{store: s, ids: ids, values: exploreValuesNoNul(), last: map[[2]int]xArgs{}}
		},
		args:    rmxArgsFor,
		touched: rmTouched,
		names:   xNames,
		atOnce:  []string{"upsert"},
	}
}

type rmxSide struct {
	store  spi.ReadModelStore
	ids    []string
	values []string
	last   map[[2]int]xArgs // the reference's last upsert per (model, id)
	// cursors are the next cursors this side's pages handed out, the k-th as k (from 1), and the
	// model each was issued for
	cursors  []string
	cursorOf []int
}

// A step names the model (ID) and the document id (To); a query names its model only.
func rmxArgsFor(r *rand.Rand, ref xSide, id func() int, op string) (any, bool) {
	x := ref.(*rmxSide)
	a := xArgs{ID: id()}
	if r.Intn(3) != 0 {
		a.ID = 9 // most documents share one model, so their ids are listed side by side
	}
	switch op {
	case "upsert":
		a.To, a.Value, a.Key, a.Flag = id(), r.Intn(len(x.values)), r.Intn(3), r.Intn(2) == 0
		if r.Intn(3) == 0 {
			a.To = r.Intn(len(x.ids)) // a document id the script may not have named: new ones land before kept cursors
		}
		if old, ok := x.last[[2]int{a.ID, a.To}]; ok && r.Intn(3) == 0 {
			a.Value, a.Key, a.Flag = twinOf(x.values, old.Value), old.Key, old.Flag // a double's twin of what is stored
		}
		if r.Intn(16) == 0 {
			a.To = -1 // the empty id: an invalid argument
		}
	case "query", "firstPage":
		a.Limit = 1 + r.Intn(3)
		switch r.Intn(16) {
		case 0:
			a.Limit = 0 // invalid (I-PLUGIN-8)
		case 1:
			a.Limit = 1000 + r.Intn(2) // the largest, and past it (I-PLUGIN-19)
		}
	case "nextPage":
		if len(x.cursors) == 0 {
			return nil, false
		}
		a.Version = int64(len(x.cursors) - r.Intn(min(len(x.cursors), 3))) // a recent cursor, maybe kept across upserts
		a.Limit = 1 + r.Intn(3)
		a.ID = x.cursorOf[a.Version-1] // its own model, or another: a foreign cursor
		if r.Intn(2) == 0 {
			a.ID = id()
		}
		a.Key = r.Intn(6) // 1: truncated, 2, 3: one character changed (forged cursors)
	}
	return a, true
}

// rmTouched reads back, after an upsert, every model the script named.
func rmTouched(st explore.Step, named []int) []explore.Step {
	if st.Op != "upsert" {
		return nil
	}
	var out []explore.Step
	for _, m := range named {
		out = append(out, explore.Step{Op: "query", Args: explore.Args(xArgs{ID: m, Limit: 2})})
	}
	return out
}

func (x *rmxSide) choice(st explore.Step) string {
	if a := xArgsOf(st); a.Limit > 3 {
		return "I-PLUGIN-19" // the largest limit served is ours
	}
	return ""
}

func (x *rmxSide) follow(st explore.Step, ans xAnswer) {
	if a := xArgsOf(st); st.Op == "upsert" && ans.refusal == "" {
		x.last[[2]int{a.ID, a.To}] = a
	}
}

func (x *rmxSide) doc(a xArgs) json.RawMessage {
	if a.Flag { // an object whose keys change with the upsert: a merge shows
		return json.RawMessage(fmt.Sprintf(`{"v%d":%s}`, a.Key, x.values[a.Value]))
	}
	return json.RawMessage(x.values[a.Value])
}

func (x *rmxSide) apply(ctx context.Context, st explore.Step) xAnswer {
	a := xArgsOf(st)
	model, ok := xName(x.ids, a.ID)
	if !ok {
		return xAnswer{refusal: "bad step"}
	}
	switch st.Op {
	case "upsert":
		id, ok := xName(x.ids, a.To)
		if !ok || a.Value < 0 || a.Value >= len(x.values) {
			return xAnswer{refusal: "bad step"}
		}
		return xAnswer{refusal: refusalOf(x.store.Upsert(ctx, model, id, x.doc(a)))}
	case "query":
		docs, pages := []spi.ReadModelDoc{}, []int{}
		cursor := ""
		for range 200 {
			p, err := x.store.Query(ctx, model, spi.ReadModelQuery{Limit: a.Limit, Cursor: cursor})
			if err != nil {
				return xAnswer{refusal: refusalOf(err)}
			}
			docs, pages = append(docs, p.Docs...), append(pages, len(p.Docs))
			if p.NextCursor == "" {
				break
			}
			cursor = p.NextCursor
		}
		return xAnswer{value: map[string]any{"docs": docs, "pageSizes": pages}}
	case "firstPage", "nextPage":
		cursor := ""
		if st.Op == "nextPage" {
			if a.Version < 1 || int(a.Version) > len(x.cursors) {
				return xAnswer{refusal: "bad step"}
			}
			cursor = x.cursors[a.Version-1]
			switch a.Key {
			case 1:
				cursor = cursor[:len(cursor)/2]
			case 2, 3: // another character of the same alphabet, in the middle or near the end
				b := []byte(cursor)
				i := len(b) / 2
				if a.Key == 3 {
					i = max(len(b)-3, 0)
				}
				if b[i] == 'A' {
					b[i] = 'B'
				} else {
					b[i] = 'A'
				}
				cursor = string(b)
			}
		}
		p, err := x.store.Query(ctx, model, spi.ReadModelQuery{Limit: a.Limit, Cursor: cursor})
		if err != nil {
			return xAnswer{refusal: refusalOf(err)}
		}
		if p.NextCursor != "" {
			x.cursors, x.cursorOf = append(x.cursors, p.NextCursor), append(x.cursorOf, a.ID)
		}
		return xAnswer{value: map[string]any{"docs": nonNilDocs(p.Docs), "more": p.NextCursor != ""}}
	}
	return xAnswer{refusal: "bad step"}
}
