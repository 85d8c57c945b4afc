package spi

import (
	"context"
	"encoding/json"
	"fmt"
)

// StateEntry is one value of a DurableStateStore with its version. Versions of a key strictly
// increase with every write and are never reused, also across a delete (I-PLUGIN-6).
type StateEntry struct {
	Key     string          `json:"key"`
	Value   json.RawMessage `json:"value"`
	Version int64           `json:"version"`
}

// Precondition makes a DurableStateStore write conditional (I-PLUGIN-5). The zero value is an
// unconditional write.
type Precondition struct {
	// IfVersion, when set, makes the write apply only if the key's current version is *IfVersion;
	// 0 means the key must be absent (create only). Otherwise the write is ErrConflict and changes
	// nothing.
	IfVersion *int64 `json:"ifVersion,omitempty"`
}

// IfVersion builds a Precondition on version v (0 = the key must be absent).
func IfVersion(v int64) Precondition { return Precondition{IfVersion: &v} }

// DurableStateStore is the plugin-tier key/value seam (spec §7) for durable plugin state, with
// optimistic concurrency per key.
type DurableStateStore interface {
	// Get returns the key's current entry, or ErrNotFound.
	Get(ctx context.Context, key string) (StateEntry, error)
	// Set writes value (any JSON value, kept as the same value, I-PLUGIN-7) under key when pre holds
	// and returns the new version, which is greater than every version the key had before, also
	// across a delete: a version read before a delete never holds after it (I-PLUGIN-5, I-PLUGIN-6).
	// A set replaces the whole value and is never skipped as unchanged (I-PLUGIN-15).
	Set(ctx context.Context, key string, value json.RawMessage, pre Precondition) (int64, error)
	// Delete removes the key when pre holds (IfVersion 0 never holds for a present key).
	// Recommended (I-PLUGIN-18): deleting an absent key unconditionally succeeds and changes nothing.
	Delete(ctx context.Context, key string, pre Precondition) error
}

// DurableStateStoreVersioned is how a DurableStateStore states the SPI version it claims.
type DurableStateStoreVersioned interface {
	DurableStateStoreSpiVersion() string
}

// ValidateStateWrite refuses an empty key, a value that is not JSON and a negative expected
// version.
func ValidateStateWrite(op, key string, value json.RawMessage, pre Precondition, needValue bool) error {
	if key == "" {
		return Invalid(op, "key", "empty")
	}
	if needValue && (len(value) == 0 || !json.Valid(value)) {
		return Invalid(op, "value", "not valid JSON")
	}
	if pre.IfVersion != nil && *pre.IfVersion < 0 {
		return Invalid(op, "ifVersion", "%d is negative", *pre.IfVersion)
	}
	return nil
}

// Holds reports whether pre holds for a key whose current version is cur (0 = absent).
func (p Precondition) Holds(cur int64) bool { return p.IfVersion == nil || *p.IfVersion == cur }

// StateConflict builds the ErrConflict of a failed precondition.
func StateConflict(key string, pre Precondition, cur int64) error {
	return &ConflictError{ExecutionID: key, Expected: *pre.IfVersion, Actual: cur,
		Reason: fmt.Sprintf("key version is %d, the write expected %d", cur, *pre.IfVersion)}
}
