package userspace

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// FuzzCheck: any emit is either refused with a typed error or accepted with a plain JSON payload
// whose folded decision id is never reserved and never changes a recorded choice.
// Run longer with `go test -fuzz FuzzCheck ./reference/kernel/userspace`.
func FuzzCheck(f *testing.F) {
	f.Add("DECISION_RECORDED", `{"id":"__loom_x","choice":1}`, 0)
	f.Add("DECISION_RECORDED", `{"id":"route","choice":2}`, 1)
	f.Add("RESOURCE_METERED", `{"tokens":1e300}`, 1)
	f.Add("QUOTA_EXCEEDED", `{"reason":"x"}`, 2)
	f.Add("STEP_COMPLETED", `{"stepId":"a"}`, 0)
	f.Fuzz(func(t *testing.T, eventType, payload string, src int) {
		if !json.Valid([]byte(payload)) {
			return // not an emit a flow can make
		}
		source := []Source{SourceFlow, SourceEffect, SourceRelay}[(src%3+3)%3]
		recorded := map[string]fold.Decision{"route": {Choice: json.RawMessage(`1`)}, "effect:s#1:route": {Choice: json.RawMessage(`1`)}}
		c, err := Check(Emit{Source: source, EventType: eventType, Payload: json.RawMessage(payload), StepID: "s", Attempt: 1}, recorded)
		var r *EmitRefusedError
		var ie *InputError
		switch {
		case errors.As(err, &r), errors.As(err, &ie):
			return
		case err != nil:
			t.Fatalf("Check = untyped error %v", err)
		}
		if !json.Valid(c.Payload) {
			t.Fatalf("accepted payload %q is not JSON", c.Payload)
		}
		if manifest.IsKernelEventType(eventType) && (source == SourceRelay || !Emittable(eventType)) {
			t.Fatalf("accepted kernel type %s from %s", eventType, source)
		}
		if eventType == manifest.DecisionRecorded {
			var d struct {
				ID     string          `json:"id"`
				Choice json.RawMessage `json:"choice"`
			}
			if json.Unmarshal(c.Payload, &d) != nil || d.ID != c.DecisionID || strings.HasPrefix(d.ID, ReservedDecisionPrefix) {
				t.Fatalf("accepted decision %s (folded id %q)", c.Payload, c.DecisionID)
			}
			if prev, ok := recorded[d.ID]; ok && !spi.SameJSON(prev.Choice, d.Choice) {
				t.Fatalf("changed choice of %s", d.ID)
			}
		}
	})
}
