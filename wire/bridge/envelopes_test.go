package bridge_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Reference: I-FOLD-22 — the bridge reads envelopes with the fold's one decoder: integers by value
// (sequence 0.0 is 0, where encoding/json refused it with a Go message), and an envelope the schema
// lets through but the decoder refuses is refused in the decoder's words.
func TestBridgeUsesTheEnvelopeDecoder(t *testing.T) {
	c := fakeBridge(t, `[{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0.0,"timestamp":1e3,"payload":null}]`)
	got, err := c.EventStore().Read(context.Background(), "x")
	if err != nil || len(got) != 1 || got[0].Sequence != 0 || got[0].Timestamp != 1000 || string(got[0].Payload) != "null" {
		t.Errorf("bridge/envelope-decoder [I-FOLD-22]: Read(sequence 0.0, timestamp 1e3) = %+v, %v; want one envelope at 0, 1000", got, err)
	}
	c = fakeBridge(t, `[{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":1,"payload":{}},`+
		`{"id":"b","workflowId":"w","executionId":"x","eventType":"T","sequence":-1,"timestamp":1,"payload":{}}]`)
	_, err = c.EventStore().Read(context.Background(), "x")
	var pe *bridge.ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "envelope 1: sequence: want a non-negative integer, got the number -1") {
		t.Errorf("bridge/envelope-decoder [I-FOLD-22]: Read(sequence -1) = %v, want a ProtocolError in the decoder's words", err)
	}
}
