package fold

import (
	"encoding/json"
	"testing"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// Reference: I-FOLD-1 — a payload that is not exactly one JSON value is refused at every profile,
// whichever handler reads it (a fast path once took "{}}" for an object because it ends in '}').
func TestTrailingDataRefusedAtEveryProfile(t *testing.T) {
	payloads := []string{`{}}`, `{"waitId":"w","answer":1}}`, `{} {}`, `{"a":1}x`, `null null`}
	for _, typ := range append(manifest.EventTypeNames(), "APP_EVENT") {
		for _, meta := range []string{``, `{"kernel":true}`} {
			for _, p := range payloads {
				for _, prof := range Profiles() {
					e := spi.Envelope{ID: "e", WorkflowID: "w", ExecutionID: "x", EventType: typ, Payload: json.RawMessage(p)}
					if meta != "" {
						e.Metadata = json.RawMessage(meta)
					}
					if _, err := Fold(prof, nil, []spi.Envelope{e}); err == nil {
						t.Errorf("fold/trailing-data [I-FOLD-1]: Fold(%s, %s %s meta=%q) = nil error, want invalid payload", prof, typ, p, meta)
					}
				}
			}
		}
	}
}
