package kernel

import (
	"encoding/json"
	"testing"
)

// Reference: spec §4 (1.23.0) — a start records the flow's code fingerprint as codeHash, and no
// sha256: flowHash unless the sha256FlowHash feature is on (the reference runtime has no such
// feature, so it records none).
func TestStartRecordsHashes(t *testing.T) {
	h := newHarness(t, nil)
	if err := h.rt.Register(FlowDef{ID: "F", CodeHash: "code-1", Fn: func(c *Context, _ json.RawMessage) (any, error) { return 1, nil }}); err != nil {
		t.Fatal(err)
	}
	h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
	var started struct {
		CodeHash *string `json:"codeHash"`
		FlowHash *string `json:"flowHash"`
	}
	evs := h.log("x")
	if err := json.Unmarshal(evs[0].Payload, &started); err != nil || evs[0].EventType != "EXECUTION_STARTED" {
		t.Fatalf("first event %s %s: %v", evs[0].EventType, evs[0].Payload, err)
	}
	if started.CodeHash == nil || *started.CodeHash != "code-1" {
		failf(t, "start/code-hash", []string{"S4.v1_23.code-hash"}, "EXECUTION_STARTED.codeHash", started.CodeHash, "code-1")
	}
	if started.FlowHash != nil {
		failf(t, "start/flowhash", []string{"S4.v1_23.flowhash-sha256"}, "EXECUTION_STARTED.flowHash", *started.FlowHash, "absent (no sha256FlowHash feature)")
	}
}
