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

// The ArchiveStore's exploration (archivestore/explore): appends, re-appends of the same, of
// different and of a double's twin envelopes, segment replacements and deletes of ids that differ
// by a delimiter, a case, a normal form, a prefix or a long tail, with payloads from the round-trip
// corpus, against the in-memory reference.

func asExplore() xSeam[spi.ArchiveStore] {
	ids := []string{"I-STORE-4", "I-STORE-27", "I-STORE-80"}
	with := func(cs ...string) []string { return append(cs, ids...) }
	return xSeam[spi.ArchiveStore]{
		check: "archivestore/explore", seam: manifest.SeamArchiveStore, steps: 24, seed: "append", precision: "I-STORE-25",
		ops: []xOp{
			{"append", "", 6, with("I-STORE-18", "I-STORE-30")},
			{"read", "", 3, with("I-STORE-18")},
			{"replaceSegments", spi.MethodReplaceSegments, 2, with("S7.as.replace-segments", "I-STORE-19", "I-STORE-30", "I-STORE-32")},
			{"deleteExecution", spi.MethodDeleteExecution, 1, with("S7.as.delete-execution")},
		},
		extra:     []string{"I-STORE-25", "I-STORE-29", "I-STORE-53", "I-STORE-70"},
		reference: func() spi.ArchiveStore { return memory.NewArchiveStore() },
		side: func(s spi.ArchiveStore, ids []string, ref bool) xSide {
			return &asxSide{store: s, ids: ids, values: append(exploreValues(), exploreTwins...), metas: exploreMetadata(), arch: map[int]map[int64]int{}, meta: map[int]map[int64]int{}}
		},
		args:    asxArgsFor,
		touched: xReadBack("read"),
		names:   xNames,
		atOnce:  []string{"append", "read", "replaceSegments"},
	}
}

// asxArgs are an archive step's arguments: the envelopes are at Seqs with payloads Values.
type asxArgs struct {
	xArgs
	Seqs   []int64 `json:"seqs,omitempty"`
	Values []int   `json:"values,omitempty"`
	Metas  []int   `json:"metas,omitempty"` // exploreMetadata, 0 for none
}

type asxSide struct {
	store  spi.ArchiveStore
	ids    []string
	values []string
	metas  []string
	arch   map[int]map[int64]int // what the reference archived: the payload of each sequence, by id
	meta   map[int]map[int64]int // and its metadata
}

func asxArgsFor(r *rand.Rand, ref xSide, id func() int, op string) (any, bool) {
	x := ref.(*asxSide)
	a := asxArgs{xArgs: xArgs{ID: id()}}
	held := x.arch[a.ID]
	next := int64(0)
	for s := range held {
		next = max(next, s+1)
	}
	switch op {
	case "append", "replaceSegments":
		start := next + int64(r.Intn(2))
		if len(held) > 0 && r.Intn(2) == 0 {
			start = max(next-1-int64(r.Intn(2)), 0) // over what is archived
		}
		for i := range 1 + r.Intn(3) {
			s := start + int64(i)
			a.Seqs = append(a.Seqs, s)
			v, ok := held[s]
			switch {
			case ok && op == "append" && r.Intn(3) != 0:
				if r.Intn(3) == 0 {
					v = twinOf(x.values, v) // a double's twin of what is archived
				}
			default:
				v = r.Intn(len(x.values))
			}
			a.Values = append(a.Values, v)
			m := 0
			if r.Intn(2) == 0 {
				m = r.Intn(len(x.metas))
			}
			a.Metas = append(a.Metas, m)
		}
		if op == "append" {
			for i, s := range a.Seqs {
				if _, ok := held[s]; ok && a.Values[i] == held[s] {
					a.Metas[i] = x.meta[a.ID][s] // the same envelope again, metadata and all
				}
			}
		}
		if op == "replaceSegments" {
			a.From, a.Through = start, a.Seqs[len(a.Seqs)-1]+int64(r.Intn(2))
			switch r.Intn(8) {
			case 0:
				a.Through = a.Seqs[len(a.Seqs)-1] - 1 // an envelope outside the range: invalid
			case 1:
				a.Seqs, a.Values, a.Metas = nil, nil, nil // no envelopes: the range is emptied
			}
		} else if len(a.Seqs) > 1 && r.Intn(10) == 0 {
			a.Seqs[0], a.Seqs[1] = a.Seqs[1], a.Seqs[0] // out of order (I-STORE-53)
		}
	}
	return a, true
}

func asxArgsOf(st explore.Step) asxArgs {
	var a asxArgs
	_ = json.Unmarshal(st.Args, &a)
	return a
}

func (x *asxSide) choice(st explore.Step) string {
	a := asxArgsOf(st)
	if st.Op != "append" {
		return ""
	}
	for i := 1; i < len(a.Seqs); i++ {
		if a.Seqs[i] <= a.Seqs[i-1] {
			return "I-STORE-53" // a batch out of order: refusing it is recommended
		}
	}
	zone := ""
	for i, s := range a.Seqs {
		v, ok := x.arch[a.ID][s]
		if !ok || i >= len(a.Values) {
			continue
		}
		switch w := a.Values[i]; {
		case w == v && (i >= len(a.Metas) || a.Metas[i] == x.meta[a.ID][s]):
			zone = "I-STORE-70" // the same envelope again: success is recommended
		case x.values[w] == exploreTwins[0] || x.values[w] == exploreTwins[1]:
			return "I-STORE-29" // equality by value, exact beyond a double: ours
		default:
			return "" // a different envelope: a conflict, required
		}
	}
	return zone
}

func (x *asxSide) follow(st explore.Step, ans xAnswer) {
	a := asxArgsOf(st)
	if ans.refusal != "" {
		return
	}
	m, mm := x.arch[a.ID], x.meta[a.ID]
	if m == nil {
		m, mm = map[int64]int{}, map[int64]int{}
		x.arch[a.ID], x.meta[a.ID] = m, mm
	}
	at := func(l []int, i int) int {
		if i < len(l) {
			return l[i]
		}
		return 0
	}
	switch st.Op {
	case "append":
		for i, s := range a.Seqs {
			if _, ok := m[s]; !ok {
				m[s], mm[s] = at(a.Values, i), at(a.Metas, i)
			}
		}
	case "replaceSegments":
		for s := range m {
			if s >= a.From && s <= a.Through {
				delete(m, s)
				delete(mm, s)
			}
		}
		for i, s := range a.Seqs {
			m[s], mm[s] = at(a.Values, i), at(a.Metas, i)
		}
	case "deleteExecution":
		delete(x.arch, a.ID)
		delete(x.meta, a.ID)
	}
}

func (x *asxSide) apply(ctx context.Context, st explore.Step) xAnswer {
	a := asxArgsOf(st)
	id, ok := xName(x.ids, a.ID)
	if !ok {
		return xAnswer{refusal: "bad step"}
	}
	envs := make([]spi.Envelope, 0, len(a.Seqs))
	for i, s := range a.Seqs {
		e := env(id, s, "x")
		if i < len(a.Values) && a.Values[i] >= 0 && a.Values[i] < len(x.values) {
			e.Payload = json.RawMessage(x.values[a.Values[i]])
		}
		if i < len(a.Metas) && a.Metas[i] > 0 && a.Metas[i] < len(x.metas) {
			e.Metadata = json.RawMessage(x.metas[a.Metas[i]])
		}
		envs = append(envs, e)
	}
	switch st.Op {
	case "append":
		return xAnswer{refusal: refusalOf(x.store.Append(ctx, id, envs))}
	case "read":
		got, err := x.store.Read(ctx, id)
		return xAnswer{refusal: refusalOf(err), value: nonNil(got)}
	case "replaceSegments":
		if rs, ok := x.store.(spi.SegmentReplacer); ok {
			return xAnswer{refusal: refusalOf(rs.ReplaceSegments(ctx, id, spi.SeqRange{From: a.From, Through: a.Through}, envs))}
		}
	case "deleteExecution":
		if d, ok := x.store.(spi.ArchiveDeleter); ok {
			return xAnswer{refusal: refusalOf(d.DeleteExecution(ctx, id))}
		}
	}
	return xAnswer{refusal: "bad step"}
}
