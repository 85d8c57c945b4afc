package bridge_test

import (
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Conflict data carries integer sequences (for a stale anchor: expected -1, actual the next free
// sequence); data that does not decode, such as anchors sent as strings, is ignored and the code
// alone decides (I-BRIDGE-11).
func TestConflictDataDecoding(t *testing.T) {
	stale := bridge.ErrorFromSPI(&spi.ConflictError{ExecutionID: "x", Expected: -1, Actual: 3, Reason: "stale anchor"})
	var ce *spi.ConflictError
	if err := bridge.ErrorToSPI("eventStore.appendIfUnchanged", *stale); !errors.As(err, &ce) || ce.Expected != -1 || ce.Actual != 3 {
		t.Errorf("bridge/conflict-data [I-BRIDGE-11]: ErrorToSPI(stale anchor) = %v, want a ConflictError{Expected: -1, Actual: 3}", err)
	}
	asStrings := bridge.RPCError{Code: bridge.CodeConflict, Message: "stale", Data: []byte(`{"executionId":"x","expected":"0:2","actual":"1:0"}`)}
	if err := bridge.ErrorToSPI("eventStore.appendIfUnchanged", asStrings); !errors.Is(err, spi.ErrConflict) {
		t.Errorf("bridge/conflict-data [I-BRIDGE-11]: ErrorToSPI(conflict with string data) = %v, want a conflict", err)
	}
}
