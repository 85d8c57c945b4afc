package spi

import (
	"bytes"
	"encoding/json"
)

// IsObject reports whether raw is a JSON object.
func IsObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// SameJSON reports whether two JSON texts hold the same value: objects compared by key set (order
// ignored), numbers by their exact decimal text after normalisation, strings after unescaping.
func SameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, err1 := decode(a)
	vb, err2 := decode(b)
	return err1 == nil && err2 == nil && sameValue(va, vb)
}

func decode(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		return ok && NormalizeNumber(string(x)) == NormalizeNumber(string(y))
	default:
		return a == b
	}
}

// SameEnvelope reports whether two envelopes hold the same values (payload and metadata by JSON
// value, absent metadata equal to absent).
func SameEnvelope(a, b Envelope) bool {
	if a.ID != b.ID || a.WorkflowID != b.WorkflowID || a.ExecutionID != b.ExecutionID ||
		a.EventType != b.EventType || a.Sequence != b.Sequence || a.Timestamp != b.Timestamp {
		return false
	}
	if !SameJSON(a.Payload, b.Payload) {
		return false
	}
	if len(a.Metadata) == 0 || len(b.Metadata) == 0 {
		return len(a.Metadata) == len(b.Metadata)
	}
	return SameJSON(a.Metadata, b.Metadata)
}

// SameBranch reports whether two branches hold the same values.
func SameBranch(a, b Branch) bool {
	if a.ID != b.ID || a.ParentID != b.ParentID || a.ForkSequence != b.ForkSequence {
		return false
	}
	if len(a.Metadata) == 0 || len(b.Metadata) == 0 {
		return len(a.Metadata) == len(b.Metadata)
	}
	return SameJSON(a.Metadata, b.Metadata)
}
