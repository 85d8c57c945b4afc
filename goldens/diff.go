package goldens

import (
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/internal/jsondiff"
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
	// Diff is the (-want +got) of the differing envelope or state, as JSON (internal/jsondiff).
	Diff string `json:"diff"`
}

func (d *Divergence) String() string {
	if d.Where == "state" {
		return fmt.Sprintf("state differs at %s (-want +got):\n%s", jsondiff.Pointer(d.Pointer), d.Diff)
	}
	return fmt.Sprintf("envelope %d (%s) differs at %s (-want +got):\n%s", d.Index, d.EventType, jsondiff.Pointer(d.Pointer), d.Diff)
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
	p, differs := jsondiff.First(w, g)
	if !differs {
		return nil
	}
	return &Divergence{Where: "state", Index: -1, Pointer: p, Diff: jsondiff.Lines(w, g)}
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
		p, differs := jsondiff.First(w, g)
		if !differs {
			continue
		}
		return &Divergence{Where: "log", Index: i, EventType: et, Pointer: p, Diff: jsondiff.Lines(w, g)}
	}
	return nil
}

func envValue(e spi.Envelope, o DiffOptions) any {
	v := jsondiff.Value(e)
	if m, ok := v.(map[string]any); ok && !o.Strict {
		for _, f := range VolatileFields {
			delete(m, f)
		}
	}
	return v
}

// decode is a state's JSON value, or its text marked as not JSON.
func decode(b []byte) any {
	return jsondiff.Value(json.RawMessage(b))
}
