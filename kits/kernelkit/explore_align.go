package kernelkit

import (
	"encoding/json"
	"maps"

	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// alignDecisionSeqs takes, for kernel/explore, the reference's `seq` of each decision in the
// state's _decisions (spec 1.24.0: the sequence of its DECISION_RECORDED) where the kernel's entry
// differs by it alone. Which emits of a parallel are stamped and served (I-KERNEL-5, I-KERNEL-18)
// moves every later envelope of the kernel's log, and with them the sequences its decisions were
// recorded at; the logs are compared envelope by envelope after that choice is aligned, so a seq
// the choice moved is not a difference of its own. Applied to the run and its driven executions.
func alignDecisionSeqs(want, got *carrier.Run) {
	for i, w := range append([]carrier.Run{*want}, want.Driven...) {
		g := got
		if i > 0 {
			if i-1 >= len(got.Driven) {
				return
			}
			g = &got.Driven[i-1]
		}
		g.State = withDecisionSeqs(w.State, g.State)
	}
}

// withDecisionSeqs is got's state with each _decisions entry's seq taken from want's where the
// two entries agree on every other member (got unchanged when nothing is taken).
func withDecisionSeqs(want, got string) string {
	type state = map[string]json.RawMessage
	decisions := func(s string) (state, state, map[string]state, bool) {
		var top, vars state
		if json.Unmarshal([]byte(s), &top) != nil || json.Unmarshal(top["variables"], &vars) != nil {
			return nil, nil, nil, false
		}
		var ds map[string]state
		if json.Unmarshal(vars["_decisions"], &ds) != nil || ds == nil {
			return nil, nil, nil, false
		}
		return top, vars, ds, true
	}
	_, _, wd, ok := decisions(want)
	if !ok {
		return got
	}
	top, vars, gd, ok := decisions(got)
	if !ok {
		return got
	}
	changed := false
	for id, g := range gd {
		w, ok := wd[id]
		if !ok || string(w["seq"]) == string(g["seq"]) || w["seq"] == nil {
			continue
		}
		a, b := maps.Clone(w), maps.Clone(g)
		delete(a, "seq")
		delete(b, "seq")
		if sameJSON(mustJSON(a), string(mustJSON(b))) {
			g["seq"] = w["seq"]
			changed = true
		}
	}
	if !changed {
		return got
	}
	vars["_decisions"] = mustJSON(gd)
	top["variables"] = mustJSON(vars)
	return string(mustJSON(top))
}
