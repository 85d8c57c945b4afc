package spi

import "encoding/json"

// Envelope is one event as stored: the kernel's on-disk ABI (spec §4, DESIGN §3.1).
// Sequence is dense per execution and starts at 0; Timestamp is epoch milliseconds. Payload is any
// JSON value and Metadata an optional JSON object; both are kept as raw JSON so a store can round
// trip them value-exactly.
type Envelope struct {
	ID          string          `json:"id"`
	WorkflowID  string          `json:"workflowId"`
	ExecutionID string          `json:"executionId"`
	EventType   string          `json:"eventType"`
	Sequence    int64           `json:"sequence"`
	Timestamp   int64           `json:"timestamp"`
	Payload     json.RawMessage `json:"payload"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
}
