package vectors

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"

	"github.com/loom-kernel/loom-conform/spec"
)

// A fold vector that expects a state and cites a choice beside a required clause names, in
// choicePaths, the members of the expected state that choice decides (JSON Pointers, RFC 6901).
// Its answer is then compared as several assertions, each citing its own clauses (DESIGN §7.1, a
// tier per assertion):
//
//   - the state outside the choice paths, byte for byte, with every choice path's member present
//     but its value not compared, citing the vector's required clauses;
//   - for each choice, the values at its paths, byte for byte, citing that choice alone.
//
// So a fold that takes another legal option of a choice misses a recommendation, not a required
// vector, while a state that differs anywhere else, or lacks a member a choice path names, fails
// the required assertion. A path always names a member the expected state has (the loader refuses
// any other): where a choice decides whether a member is there at all, its path names the object
// that holds it.

// choicePathList is v's choice paths as (clause, pointer) pairs, in the order of v.Clauses, each
// clause's pointers in the order written.
func (v Vector) choicePathList() [][2]string {
	var out [][2]string
	for _, c := range v.Clauses {
		for _, p := range v.ChoicePaths[c] {
			out = append(out, [2]string{c, p})
		}
	}
	return out
}

// validateChoicePaths checks v's choicePaths against its clauses and expected state: a state
// vector that cites a choice beside a required clause names paths for every choice it cites; each
// names a cited choice and members expect.state has; no other vector has them.
func (v Vector) validateChoicePaths(known map[string]bool, bad func(string, ...any)) {
	var choices, required []string
	for _, id := range v.Clauses {
		if c, ok := spec.Lookup(id); ok && c.Tier == spec.TierChoice {
			choices = append(choices, id)
		} else {
			required = append(required, id)
		}
	}
	switch {
	case v.Kind != KindFold || v.Expect.State == nil:
		if len(v.ChoicePaths) > 0 {
			bad("choicePaths: only a fold vector that expects a state has them")
		}
		return
	case len(required) == 0:
		if len(v.ChoicePaths) > 0 {
			bad("choicePaths: the vector cites only choices, so its whole answer binds as a recommendation already; drop choicePaths")
		}
		return
	}
	dec := json.NewDecoder(bytes.NewReader(v.Expect.State))
	dec.UseNumber()
	var state any
	if dec.Decode(&state) != nil {
		return // expect.state's own check reports it
	}
	ids := make([]string, 0, len(v.ChoicePaths))
	for id := range v.ChoicePaths {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		switch {
		case !known[id]:
			bad("choicePaths: unknown clause %q (see loom-conform spec)", id)
			continue
		case !slices.Contains(v.Clauses, id):
			bad("choicePaths: %s is not among the vector's clauses", id)
			continue
		case !slices.Contains(choices, id):
			bad("choicePaths: %s is not a choice: only a choice's paths are compared apart, as a recommendation", id)
			continue
		}
		seen := map[string]bool{}
		for _, p := range v.ChoicePaths[id] {
			if seen[p] {
				bad("choicePaths: %s names %q twice", id, p)
			}
			seen[p] = true
			if toks, err := pointerTokens(p); err != nil {
				bad("choicePaths: %s: %v", id, err)
			} else if !has(state, toks) {
				bad("choicePaths: %s: %q names nothing expect.state has (where a choice decides whether a member is there, name the object holding it)", id, p)
			}
		}
	}
	for _, id := range choices {
		if len(v.ChoicePaths[id]) == 0 {
			bad("choicePaths: the vector cites the choice %s beside a required clause, so it names the members of expect.state %s decides (or the vector is split, one citing only choices)", id, id)
		}
	}
}
