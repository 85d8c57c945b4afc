package kits

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// The ContentStore's exploration (contentstore/explore): puts, streamed puts (whole, in odd small
// reads, aborted halfway by the reader's error), gets of what was put, of what never was and of
// malformed digests, plain and under owners that differ by a delimiter, a case, a normal form, a
// prefix or a long tail, with content from the round-trip corpus, against the in-memory reference.
// Content is addressed by its digest across the whole store, so every replay's content begins with
// that replay's own names. Cancelling a stream through the context is timing, left to
// contentstore/put-stream-cancel.

func csExplore() xSeam[spi.ContentStore] {
	put := []string{"S7.plugin.pinned", "I-PLUGIN-1", "I-PLUGIN-12"}
	stream := []string{"S7.plugin.pinned", "I-PLUGIN-1", "I-PLUGIN-2"}
	owners := []string{"I-PLUGIN-3", "I-PLUGIN-14", "I-STORE-4", "I-STORE-80"}
	with := func(a, b []string) []string { return append(append([]string(nil), a...), b...) }
	return xSeam[spi.ContentStore]{
		check: "contentstore/explore", seam: manifest.SeamContentStore, steps: 20,
		ops: []xOp{
			{"put", "", 3, put},
			{"get", "", 3, append(append([]string(nil), put...), "I-PLUGIN-17")},
			{"putStream", "", 3, stream},
			{"putFor", spi.MethodOwner, 3, with(put, owners)},
			{"getFor", spi.MethodOwner, 3, with(append(append([]string(nil), put...), "I-PLUGIN-17"), owners)},
			{"putStreamFor", spi.MethodOwner, 3, with(stream, owners)},
		},
		extra:     []string{"I-STORE-56"},
		reference: func() spi.ContentStore { return memory.NewContentStore() },
		side: func(s spi.ContentStore, ids []string, ref bool) xSide {
			big, _ := largeValue(96<<10, 0) // past 64 KiB, a common cut
			return &csxSide{store: s, ids: ids, values: append(exploreValues(), big)}
		},
		args:    csxArgsFor,
		touched: csTouched,
		names:   xNames,
		atOnce:  []string{"put", "get", "putStream"},
	}
}

type csxSide struct {
	store  spi.ContentStore
	ids    []string
	values []string
	put    []int // the values put so far (for the generator)
}

// A step's owner is ID (putFor, getFor, putStreamFor), its content Value; Key is how a stream
// reads (1: in odd small reads, 2: it fails halfway) and Flag a malformed digest.
func csxArgsFor(r *rand.Rand, ref xSide, id func() int, op string) (any, bool) {
	x := ref.(*csxSide)
	a := xArgs{ID: id(), Value: r.Intn(2 * len(x.values))} // the second half: content that is JSON
	switch op {
	case "get", "getFor":
		if len(x.put) > 0 && r.Intn(4) != 0 {
			a.Value = x.put[r.Intn(len(x.put))]
		}
		a.Flag = r.Intn(10) == 0
	case "putStream", "putStreamFor":
		a.Key = r.Intn(3)
	}
	return a, true
}

// csTouched reads back, after a put, its content plainly and, after a put under an owner (the
// target declares owners), under every owner the script named; after a stream that failed
// halfway, the half it read too (Key 3).
func csTouched(st explore.Step, named []int) []explore.Step {
	a := xArgsOf(st)
	var out []explore.Step
	read := func(op string, owner int) {
		out = append(out, explore.Step{Op: op, Args: explore.Args(xArgs{ID: owner, Value: a.Value})})
		if a.Key == 2 {
			out = append(out, explore.Step{Op: op, Args: explore.Args(xArgs{ID: owner, Value: a.Value, Key: 3})})
		}
	}
	switch st.Op {
	case "put", "putStream":
		read("get", 0)
	case "putFor", "putStreamFor":
		read("get", 0)
		for _, o := range named {
			read("getFor", o)
		}
	}
	return out
}

func (x *csxSide) choice(st explore.Step) string {
	switch a := xArgsOf(st); {
	case st.Op == "get" && a.Flag:
		return "I-PLUGIN-17" // a malformed digest refused as such: ours
	case st.Op == "getFor" && a.Flag:
		return "I-STORE-56" // malformed and maybe not the owner's: which refusal first is ours
	}
	return ""
}

func (x *csxSide) follow(st explore.Step, ans xAnswer) {
	if a := xArgsOf(st); ans.refusal == "" && (st.Op == "put" || st.Op == "putFor" || st.Op == "putStream" || st.Op == "putStreamFor") {
		x.put = append(x.put, a.Value)
	}
}

// content is this replay's bytes of value v: they hold the replay's names, so replays never share
// content; v past the values is the same value inside a JSON object, spaced and escaped as no
// encoder writes it (content that is JSON is still bytes, I-PLUGIN-12).
func (x *csxSide) content(v int) []byte {
	if n := len(x.values); v >= n {
		return []byte(`{ "v" : ` + x.values[v-n] + ` , "replay" : "\u0072` + jsonEscape(x.ids[0]) + `" }`)
	}
	return []byte(x.ids[0] + "|" + x.values[v])
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// halfThenFail reads the first half of its bytes, then fails.
type halfThenFail struct{ r *bytes.Reader }

var errStreamAborted = errors.New("the stream was aborted halfway")

func (h *halfThenFail) Read(p []byte) (int, error) {
	if h.r.Len() <= int(h.r.Size())/2 {
		return 0, errStreamAborted
	}
	return h.r.Read(p[:min(len(p), max(h.r.Len()-int(h.r.Size())/2, 1))])
}

// smallReads reads at most n bytes per call.
type smallReads struct {
	r io.Reader
	n int
}

func (b smallReads) Read(p []byte) (int, error) {
	return b.r.Read(p[:min(len(p), b.n)])
}

func (x *csxSide) apply(ctx context.Context, st explore.Step) xAnswer {
	a := xArgsOf(st)
	if a.Value < 0 || a.Value >= 2*len(x.values) {
		return xAnswer{refusal: "bad step"}
	}
	data := x.content(a.Value)
	if a.Key == 3 { // what a stream failing halfway had read
		data = data[:len(data)-len(data)/2]
	}
	owned, isOwned := x.store.(spi.OwnedContentStore)
	var access spi.ContentAccess
	switch st.Op {
	case "putFor", "getFor", "putStreamFor":
		owner, ok := xName(x.ids, a.ID)
		if !ok || !isOwned {
			return xAnswer{refusal: "bad step"}
		}
		access = spi.ContentAccess{Owner: owner}
	}
	ref := func(r spi.ContentRef, err error) xAnswer {
		if err != nil {
			return xAnswer{refusal: refusalOf(err)}
		}
		return xAnswer{value: r}
	}
	stream := func(put func(io.Reader) (spi.ContentRef, error)) xAnswer {
		switch a.Key {
		case 1:
			n := 7 // odd small reads; large content in reads of a page and a bit
			if len(data) > 8<<10 {
				n = 4099
			}
			return ref(put(smallReads{bytes.NewReader(data), n}))
		case 2: // any refusal will do, and nothing may be stored (the read-back sees)
			if _, err := put(&halfThenFail{bytes.NewReader(data)}); err != nil {
				return xAnswer{refusal: "refused"}
			}
			return xAnswer{value: "stored a stream that failed halfway"}
		}
		return ref(put(bytes.NewReader(data)))
	}
	digest := spi.DigestOf(data)
	if a.Flag {
		digest = "sha256:" + digest[len("sha256:"):len(digest)-1] // 63 hex digits: malformed
	}
	got := func(b []byte, err error) xAnswer {
		if err != nil {
			return xAnswer{refusal: refusalOf(err)}
		}
		return xAnswer{value: string(b)}
	}
	switch st.Op {
	case "put":
		return ref(x.store.Put(ctx, data))
	case "get":
		return got(x.store.Get(ctx, digest))
	case "putStream":
		return stream(func(r io.Reader) (spi.ContentRef, error) { return x.store.PutStream(ctx, r) })
	case "putFor":
		return ref(owned.PutFor(ctx, access, data))
	case "getFor":
		return got(owned.GetFor(ctx, access, digest))
	case "putStreamFor":
		return stream(func(r io.Reader) (spi.ContentRef, error) { return owned.PutStreamFor(ctx, access, r) })
	}
	return xAnswer{refusal: "bad step"}
}
