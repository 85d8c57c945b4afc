package userspace

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/spi"
)

func envs(et string, payload json.RawMessage) []spi.Envelope {
	return []spi.Envelope{
		{ID: "0", WorkflowID: "wf", ExecutionID: "x", EventType: "EXECUTION_STARTED", Sequence: 0, Timestamp: 1, Payload: json.RawMessage(`{"input":null}`)},
		{ID: "1", WorkflowID: "wf", ExecutionID: "x", EventType: et, Sequence: 1, Timestamp: 2, Payload: payload},
	}
}
