package ingress

import (
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// DiscardDecisionPrefix starts the id of the kernel DECISION_RECORDED that records an honoured
// discardLegacyAnswers override: "__loom_discard:<stepId>" with choice {count}.
const DiscardDecisionPrefix = "__loom_discard:"

// DiscardDecisionID is the decision id recording a discardLegacyAnswers override for stepID.
func DiscardDecisionID(stepID string) string { return DiscardDecisionPrefix + stepID }

// LegacyEntry is a _resumePayloads entry that answered no suspend point — only a log written
// before the ingress gate holds one (spec §5). Spent says whether the flow has provably consumed
// it already: a later park on a normal gate shows every entry before it was served. An unspent
// one will be served to the flow's next gate as its answer.
type LegacyEntry struct {
	Index    int
	Sequence int64 // of the EXECUTION_RESUMED that added it
	Spent    bool
}

// LegacyEntries lists the entries that answered no suspend point, in order, for the runtime's
// warning (spec §5 SHOULD; docs/interpretations.md I-KERNEL-57).
func LegacyEntries(f Facts) []LegacyEntry {
	var out []LegacyEntry
	for _, e := range f.Entries {
		if e.Answered {
			continue
		}
		out = append(out, LegacyEntry{Index: e.Index, Sequence: e.Sequence, Spent: parkedBetween(f, e.Sequence, f.Sequence+1)})
	}
	return out
}

// parkedBetween reports a park on a normal gate with sequence in (after, before).
func parkedBetween(f Facts, after, before int64) bool {
	for _, p := range f.Parks {
		if p.Normal && p.Sequence > after && p.Sequence < before {
			return true
		}
	}
	return false
}

// AmbiguousSteps returns the open human steps whose answer cannot be told apart from another
// _resumePayloads entry (spec §5, docs/interpretations.md I-KERNEL-56), in first-start order. A
// step is skipped once a discardLegacyAnswers override for it is recorded in decisions. For an
// open human step H first started at s0 that has no park attributed to it (condition.stepId == H)
// since s0, the log is ambiguous when either
//   - an entry that answered a park was recorded after s0 and an unattributed park followed it, or
//   - an entry that answered no gate was recorded before s0 and was still unspent at s0 (no park
//     on a normal gate between it and s0).
func AmbiguousSteps(f Facts, decisions map[string]fold.Decision) []string {
	var out []string
	for _, h := range f.HumanSteps {
		if !h.Open {
			continue
		}
		if _, done := decisions[DiscardDecisionID(h.StepID)]; done {
			continue
		}
		if ambiguousFor(f, h) {
			out = append(out, h.StepID)
		}
	}
	return out
}

func ambiguousFor(f Facts, h HumanStep) bool {
	for _, p := range f.Parks {
		if p.Sequence > h.FirstStart && p.StepID == h.StepID {
			return false // attributed: the step's answer is the one that answered this park
		}
	}
	for _, e := range f.Entries {
		switch {
		case e.Answered && e.Sequence > h.FirstStart:
			for _, p := range f.Parks {
				if p.Normal && p.StepID == "" && p.Sequence > e.Sequence {
					return true // an unattributed park after an answer
				}
			}
		case !e.Answered && e.Sequence < h.FirstStart:
			if !parkedBetween(f, e.Sequence, h.FirstStart) {
				return true // an unspent entry that answered no gate before the first start
			}
		}
	}
	return false
}
