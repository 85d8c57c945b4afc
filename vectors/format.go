package vectors

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// Kind says what a vector exercises and so which members it has (docs/vectors.md).
type Kind string

const (
	// KindFold: fold a profile, an optional snapshot and events; expect a canonical state or an
	// error kind.
	KindFold Kind = "fold"
	// KindCanonical: the canonical JSON (DESIGN §3.3) of a JSON text; expect the canonical text or
	// the error kind invalid-json.
	KindCanonical Kind = "canonical"
	// KindDigest: the emit digest (DESIGN §3.4) of a segment, an event type and a payload.
	KindDigest Kind = "digest"
)

// Kinds lists the vector kinds in reporting order.
func Kinds() []Kind { return []Kind{KindFold, KindCanonical, KindDigest} }

// Error kinds a vector may expect instead of a value: a closed set, compared by name only
// (messages are free text). docs/vectors.md defines each; I-VECTOR-3.
const (
	ErrInvalidEnvelope   = fold.KindInvalidEnvelope // an envelope the fold cannot read (a member missing, null or of the wrong type)
	ErrSequence          = fold.KindSequence        // sequences not dense from 0, or not continuing the snapshot's
	ErrMixedExecutions   = fold.KindMixedExecutions // envelopes of more than one executionId
	ErrInvalidSnapshot   = fold.KindInvalidSnapshot // a snapshot that is not a folded state
	ErrInvalidJSON       = "invalid-json"           // canonical: the input is not a JSON text
	ErrUnsupported       = "unsupported"            // a foreign fold that does not implement the kind (never expected)
	ErrInternal          = "internal"               // anything else a fold reports (never expected)
	maxReasonLen         = 200                      // a reason is one line
	maxIDLen             = 120                      // ids appear in reports and file names
	currentProtocolLevel = 1                        // the line protocol's version (docs/vectors.md)
)

// ErrorKinds lists the error kinds a vector may expect, per vector kind.
func ErrorKinds(k Kind) []string {
	switch k {
	case KindFold:
		return []string{ErrInvalidEnvelope, ErrSequence, ErrMixedExecutions, ErrInvalidSnapshot}
	case KindCanonical:
		return []string{ErrInvalidJSON}
	}
	return nil
}

// Vector is one language-neutral test vector: the content of one JSON file (docs/vectors.md).
// Which input members are present depends on Kind.
type Vector struct {
	ID      string   `json:"id"`      // stable, unique in a corpus; [a-z0-9] words joined by . - / _
	Kind    Kind     `json:"kind"`    // fold, canonical or digest
	Reason  string   `json:"reason"`  // one line: what this vector pins down and why
	Clauses []string `json:"clauses"` // clause ids it enforces (loom-conform spec)

	// fold
	Profile  string          `json:"profile,omitempty"`  // event-schema version folded as, 1.20.0..1.26.0
	Snapshot json.RawMessage `json:"snapshot,omitempty"` // a stored folded state; absent = empty log
	// SnapshotProfile names the profile whose fold wrote the snapshot when it is older than
	// Profile: the snapshot is then read through normalizeSnapshotState for that writer (spec §4,
	// I-FOLD-13). Absent: the snapshot was written by Profile and is read as is.
	SnapshotProfile string            `json:"snapshotProfile,omitempty"`
	Events          []json.RawMessage `json:"events,omitempty"` // envelopes (DESIGN §3.1), in order

	// canonical
	Input *string `json:"input,omitempty"` // a JSON text, as a string so its spelling is exact

	// digest
	Segment   *int            `json:"segment,omitempty"`
	EventType string          `json:"eventType,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`

	Expect Expect `json:"expect"`
	// ChoicePaths, on a fold vector expecting a state that cites a choice beside a required clause,
	// names per choice the members of expect.state that choice decides (JSON Pointers): they are
	// compared apart, citing the choice, and the rest of the state citing the required clauses
	// (choicepaths.go).
	ChoicePaths map[string][]string `json:"choicePaths,omitempty"`

	// File is the path the vector was loaded from (not part of the file).
	File string `json:"-"`
}

// Expect is a vector's expectation: exactly one member is set.
type Expect struct {
	State     json.RawMessage `json:"state,omitempty"`     // fold: the folded state (compared as canonical JSON bytes)
	Canonical *string         `json:"canonical,omitempty"` // canonical: the canonical text
	Digest    string          `json:"digest,omitempty"`    // digest: 16 lowercase hex digits
	Error     string          `json:"error,omitempty"`     // an error kind instead of a value
}
