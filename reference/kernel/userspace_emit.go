package kernel

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"
)

// recordedDecisions is the view of _decisions the userspace rules read. r.mu is held.
func (r *run) recordedDecisions(eventType string) map[string]fold.Decision {
	if eventType != manifest.DecisionRecorded {
		return nil
	}
	out := make(map[string]fold.Decision, len(r.decisions))
	for id, ch := range r.decisions {
		out[id] = fold.Decision{Choice: ch}
	}
	return out
}

// checkUserspace applies the userspace emit rules of spec §5 (package userspace). r.mu is held.
func (r *run) checkUserspace(e userspace.Emit) (userspace.Checked, error) {
	return userspace.Check(e, r.recordedDecisions(e.EventType))
}

// noteUserspaceDecision records an appended userspace decision in the replay index. r.mu is held.
func (r *run) noteUserspaceDecision(c userspace.Checked) {
	if c.EventType != manifest.DecisionRecorded || c.DecisionID == "" {
		return
	}
	var p struct {
		Choice json.RawMessage `json:"choice"`
	}
	_ = json.Unmarshal(c.Payload, &p)
	if p.Choice == nil {
		p.Choice = json.RawMessage("null")
	}
	r.decisions[c.DecisionID] = p.Choice
}

// noteMetered adds an appended RESOURCE_METERED's dimensions to the run's totals, as the fold's
// _resources does, so admission control sees userspace metering too (spec §8). r.mu is held.
func (r *run) noteMetered(c userspace.Checked) {
	if c.EventType != manifest.ResourceMetered {
		return
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(c.Payload, &p) != nil {
		return
	}
	for _, dim := range fold.ResourceDimensions() {
		var v float64
		if raw, ok := p[dim]; ok && json.Unmarshal(raw, &v) == nil && validMeter(v) {
			r.resources[dim] += v
		}
	}
}
