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

// ValidateSnapshot refuses a snapshot with an empty execution id, a negative sequence or a state
// that is not a JSON object.
func ValidateSnapshot(s Snapshot) error {
	if s.ExecutionID == "" {
		return Invalid("save", "executionId", "empty")
	}
	if s.Sequence < 0 {
		return Invalid("save", "sequence", "%d is negative", s.Sequence)
	}
	if !IsObject(s.State) {
		return Invalid("save", "state", "not a JSON object")
	}
	return nil
}

// ValidateArchiveBatch checks an archive batch: a non-empty id, envelopes of that execution with
// distinct ascending sequences (archived ranges need not be dense) and valid JSON.
func ValidateArchiveBatch(op, id string, events []Envelope) error {
	if id == "" {
		return Invalid(op, "executionId", "empty")
	}
	for i, e := range events {
		if err := ValidateBatch(op, id, []Envelope{e}); err != nil {
			return err
		}
		if i > 0 && e.Sequence <= events[i-1].Sequence {
			return Invalid(op, "events", "envelope %d has sequence %d, not after %d", i, e.Sequence, events[i-1].Sequence)
		}
	}
	return nil
}

// ValidateReplace checks a replaceSegments call.
func ValidateReplace(id string, r SeqRange, events []Envelope) error {
	if r.From < 0 || r.From > r.Through {
		return Invalid("replaceSegments", "range", "[%d, %d] is empty or negative", r.From, r.Through)
	}
	if err := ValidateArchiveBatch("replaceSegments", id, events); err != nil {
		return err
	}
	for i, e := range events {
		if !r.Contains(e.Sequence) {
			return Invalid("replaceSegments", "events", "envelope %d has sequence %d outside [%d, %d]", i, e.Sequence, r.From, r.Through)
		}
	}
	return nil
}

// ValidateBranch refuses an empty id or parent, a self-parent, a negative fork sequence and metadata
// that is not a JSON object.
func ValidateBranch(b Branch) error {
	switch {
	case b.ID == "":
		return Invalid("register", "id", "empty")
	case b.ParentID == "":
		return Invalid("register", "parentId", "empty")
	case b.ParentID == b.ID:
		return Invalid("register", "parentId", "%q is the branch itself", b.ID)
	case b.ForkSequence < 0:
		return Invalid("register", "forkSequence", "%d is negative", b.ForkSequence)
	case len(b.Metadata) > 0 && !IsObject(b.Metadata):
		return Invalid("register", "metadata", "not a JSON object")
	}
	return nil
}
