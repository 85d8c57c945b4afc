package fold

import (
	"slices"
)

// DecisionEvidenceOrder returns the _decisions ids in the order the decisions were made, as
// evidence is read (spec §4, 1.24.0): entries with seq in seq order, and each entry without seq
// (a legacy or mixed-fleet entry) immediately after the stamped entry that precedes it in map
// order. Map order is the canonical key order, the only order a State keeps (I-FOLD-19);
// unstamped entries before any stamped one come first.
func DecisionEvidenceOrder(s State) []string {
	ids := make([]string, 0, len(s.Variables.Decisions))
	for id := range s.Variables.Decisions {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, compareUTF16)
	// Group each run of unstamped entries with the stamped entry before it in map order.
	type group struct {
		seq     int64
		stamped bool
		ids     []string
	}
	var groups []group
	lead := group{} // unstamped entries before any stamped one
	for _, id := range ids {
		d := s.Variables.Decisions[id]
		switch {
		case d.HasSeq:
			groups = append(groups, group{seq: d.Seq, stamped: true, ids: []string{id}})
		case len(groups) == 0:
			lead.ids = append(lead.ids, id)
		default:
			g := &groups[len(groups)-1]
			g.ids = append(g.ids, id)
		}
	}
	slices.SortStableFunc(groups, func(a, b group) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	out := append([]string{}, lead.ids...)
	for _, g := range groups {
		out = append(out, g.ids...)
	}
	return out
}
