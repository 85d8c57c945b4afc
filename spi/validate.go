package spi

import "encoding/json"

// ValidateBatch checks the shape of an append batch for op: a non-empty execution id, every envelope
// of that execution, sequences dense and ascending from a non-negative first sequence, and payload
// and metadata that are valid JSON (metadata, when present, an object). Stores call it before
// touching storage, so a malformed call changes nothing.
func ValidateBatch(op, executionID string, events []Envelope) error {
	if executionID == "" {
		return Invalid(op, "executionId", "empty")
	}
	for i, e := range events {
		if e.ExecutionID != executionID {
			return Invalid(op, "events", "envelope %d has executionId %q, want %q", i, e.ExecutionID, executionID)
		}
		if i == 0 && e.Sequence < 0 {
			return Invalid(op, "events", "envelope 0 has sequence %d, want >= 0", e.Sequence)
		}
		if i > 0 && e.Sequence != events[i-1].Sequence+1 {
			return Invalid(op, "events", "envelope %d has sequence %d, want %d (dense)", i, e.Sequence, events[i-1].Sequence+1)
		}
		if len(e.Payload) == 0 || !json.Valid(e.Payload) {
			return Invalid(op, "events", "envelope %d payload is not valid JSON", i)
		}
		if len(e.Metadata) > 0 {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(e.Metadata, &m); err != nil || m == nil {
				return Invalid(op, "events", "envelope %d metadata is not a JSON object", i)
			}
		}
	}
	return nil
}
