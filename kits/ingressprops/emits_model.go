package ingressprops

import (
	"encoding/json"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
)

// This file is the model of the userspace emit rules (spec §5, I-KERNEL-61..63): written from the
// spec and the generator's knowledge of each payload variant, sharing no code with
// reference/kernel/userspace.

var userspaceSeven = map[string]bool{
	"RESOURCE_METERED": true, "QUOTA_EXCEEDED": true, "SAFETY_BLOCKED": true, "EGRESS_DENIED": true,
	"EFFECT_DENIED": true, "OUTCOME_RECORDED": true, "DECISION_RECORDED": true,
}

// EmitPrediction is what the spec says a checker does with an emit.
type EmitPrediction struct {
	Reason   string // "" = accepted
	FoldedID string // accepted DECISION_RECORDED: the id that must be folded
}

// PredictEmit applies the userspace emit rules to a case.
func PredictEmit(c EmitCase) EmitPrediction {
	kernel := isKernelType(c.EventType)
	if kernel && c.Source == "relay" {
		return EmitPrediction{Reason: "relay-kernel-type"}
	}
	if kernel && !userspaceSeven[c.EventType] {
		return EmitPrediction{Reason: "kernel-type"}
	}
	if c.Valid != "" {
		return EmitPrediction{Reason: c.Valid}
	}
	if c.EventType != manifest.DecisionRecorded {
		return EmitPrediction{}
	}
	var p map[string]json.RawMessage
	_ = json.Unmarshal([]byte(c.Payload), &p)
	_, hasChoice := p["choice"]
	_, hasInner := p["innerSteps"]
	id := c.DecisionID
	folded := id
	if c.Source == "effect" {
		folded = "effect:tool#1:" + id
	}
	switch {
	case id == "" || !hasChoice || hasInner:
		return EmitPrediction{Reason: "decision-invalid"}
	case strings.HasPrefix(id, "__loom_"):
		return EmitPrediction{Reason: "reserved-decision-id"}
	case c.Source != "effect" && strings.HasPrefix(id, "effect:"):
		return EmitPrediction{Reason: "reserved-decision-id"}
	}
	if prev, ok := Recorded()[folded]; ok && string(prev.Choice) != string(p["choice"]) {
		return EmitPrediction{Reason: "decision-choice-changed"}
	}
	return EmitPrediction{FoldedID: folded}
}
