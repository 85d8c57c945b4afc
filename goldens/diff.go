package goldens

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/spi"
)

// VolatileFields are the envelope members that legitimately differ between two runs of the same
// flow under different id sources and clocks: the envelope id (spi: unique, store- or
// runtime-assigned) and the wall timestamp. DiffRuns masks them unless Strict is set — the one
// rule for run-to-run noise (I-GOLDEN-2). Goldens run with deterministic ids and a virtual clock, so
// goldens check and G2 compare strictly.
var VolatileFields = []string{"id", "timestamp"}

// DiffOptions tune DiffRuns.
type DiffOptions struct {
	// Strict compares VolatileFields too.
	Strict bool
}

// Divergence is the first difference between two runs.
type Divergence struct {
	// Where is "log" or "state".
	Where string `json:"where"`
	// Index is the envelope index of the first differing envelope (log only; -1 for state).
	Index int `json:"index"`
	// EventType is the want envelope's type (or the got one's when want is shorter).
	EventType string `json:"eventType,omitempty"`
	// Pointer is the JSON Pointer of the first differing field inside the envelope or state.
	Pointer string `json:"pointer"`
	// Diff is go-cmp's (-want +got) of the differing envelope or state.
	Diff string `json:"diff"`
}

func (d *Divergence) String() string {
	if d.Where == "state" {
		return fmt.Sprintf("state differs at %s (-want +got):\n%s", orRoot(d.Pointer), d.Diff)
	}
	return fmt.Sprintf("envelope %d (%s) differs at %s (-want +got):\n%s", d.Index, d.EventType, orRoot(d.Pointer), d.Diff)
}

func orRoot(p string) string {
	if p == "" {
		return `"" (the whole value)`
	}
	return p
}

// DiffRuns returns the first divergence between two runs (logs, then states), or nil when they
// are the same. A state may be nil to compare logs only.
func DiffRuns(wantLog, gotLog []spi.Envelope, wantState, gotState []byte, o DiffOptions) *Divergence {
	if d := DiffLogs(wantLog, gotLog, o); d != nil {
		return d
	}
	if wantState == nil || gotState == nil {
		return nil
	}
	w, g := decode(wantState), decode(gotState)
	if cmp.Equal(w, g) {
		return nil
	}
	return &Divergence{Where: "state", Index: -1, Pointer: firstDiff(w, g, ""), Diff: cmp.Diff(w, g)}
}

// DiffLogs returns the first differing envelope of two logs.
func DiffLogs(want, got []spi.Envelope, o DiffOptions) *Divergence {
	n := max(len(want), len(got))
	for i := 0; i < n; i++ {
		var w, g any
		et := ""
		if i < len(want) {
			w = envValue(want[i], o)
			et = want[i].EventType
		}
		if i < len(got) {
			g = envValue(got[i], o)
			if et == "" {
				et = got[i].EventType
			}
		}
		if cmp.Equal(w, g) {
			continue
		}
		p := firstDiff(w, g, "")
		return &Divergence{Where: "log", Index: i, EventType: et, Pointer: p, Diff: cmp.Diff(w, g)}
	}
	return nil
}

func envValue(e spi.Envelope, o DiffOptions) any {
	b, _ := json.Marshal(e)
	v := decode(b)
	if m, ok := v.(map[string]any); ok && !o.Strict {
		for _, f := range VolatileFields {
			delete(m, f)
		}
	}
	return v
}

func decode(b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(b)
	}
	return v
}

// firstDiff returns the JSON Pointer of the first differing member (keys in sorted order).
func firstDiff(w, g any, at string) string {
	wm, wok := w.(map[string]any)
	gm, gok := g.(map[string]any)
	if wok && gok {
		keys := map[string]bool{}
		for k := range wm {
			keys[k] = true
		}
		for k := range gm {
			keys[k] = true
		}
		ks := make([]string, 0, len(keys))
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if !cmp.Equal(wm[k], gm[k]) {
				_, inW := wm[k]
				_, inG := gm[k]
				p := at + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
				if !inW || !inG {
					return p
				}
				return firstDiff(wm[k], gm[k], p)
			}
		}
		return at
	}
	wa, wok := w.([]any)
	ga, gok := g.([]any)
	if wok && gok {
		for i := 0; i < max(len(wa), len(ga)); i++ {
			p := at + "/" + strconv.Itoa(i)
			if i >= len(wa) || i >= len(ga) {
				return p
			}
			if !cmp.Equal(wa[i], ga[i]) {
				return firstDiff(wa[i], ga[i], p)
			}
		}
	}
	return at
}
