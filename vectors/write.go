package vectors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// MarshalFile returns v as a vector file: members in a fixed order, two-space indent, one
// envelope per line, so a person can read and review it. v must be valid.
func (v Vector) MarshalFile() ([]byte, error) {
	if err := v.Validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	member := func(first bool, key string, val any) error {
		if !first {
			b.WriteString(",\n")
		}
		raw, err := marshalIndent(val, "  ")
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		fmt.Fprintf(&b, "  %q: %s", key, raw)
		return nil
	}
	b.WriteString("{\n")
	type kv struct {
		key string
		val any
		set bool
	}
	members := []kv{
		{"id", v.ID, true}, {"kind", v.Kind, true}, {"reason", v.Reason, true}, {"clauses", v.Clauses, true},
		{"profile", v.Profile, v.Profile != ""}, {"snapshotProfile", v.SnapshotProfile, v.SnapshotProfile != ""},
		{"snapshot", v.Snapshot, v.Snapshot != nil}, {"input", v.Input, v.Input != nil},
		{"segment", v.Segment, v.Segment != nil}, {"eventType", v.EventType, v.Kind == KindDigest},
		{"payload", v.Payload, v.Payload != nil},
	}
	first := true
	for _, m := range members {
		if !m.set {
			continue
		}
		if err := member(first, m.key, m.val); err != nil {
			return nil, err
		}
		first = false
	}
	if v.Kind == KindFold {
		b.WriteString(",\n  \"events\": [")
		for i, e := range v.Events {
			if i > 0 {
				b.WriteString(",")
			}
			raw, err := marshalIndent(e, "")
			if err != nil {
				return nil, fmt.Errorf("events[%d]: %w", i, err)
			}
			b.WriteString("\n    ")
			b.Write(raw)
		}
		if len(v.Events) > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString("]")
	}
	if err := member(false, "expect", v.Expect); err != nil {
		return nil, err
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// marshalIndent encodes val without HTML escaping; with a non-empty indent it is indented, else
// compact.
func marshalIndent(val any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent(indent, "  ")
	}
	if err := enc.Encode(val); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// FoldVector builds a fold vector from Go values: the events, an optional snapshot (written by
// snapshotProfile when that differs from profile) and the expected state or error kind.
func FoldVector(id, reason string, clauses []string, profile fold.Profile, snapshot *fold.State, snapshotProfile *fold.Profile,
	events []spi.Envelope, expect *fold.State, expectErr string) (Vector, error) {
	v := Vector{ID: id, Kind: KindFold, Reason: reason, Clauses: clauses, Profile: profile.Version(), Events: []json.RawMessage{}}
	if snapshot != nil {
		b, err := snapshot.MarshalJSON()
		if err != nil {
			return Vector{}, fmt.Errorf("snapshot: %w", err)
		}
		v.Snapshot = b
	}
	if snapshotProfile != nil && *snapshotProfile != profile {
		v.SnapshotProfile = snapshotProfile.Version()
	}
	for i, e := range events {
		b, err := marshalIndent(e, "")
		if err != nil {
			return Vector{}, fmt.Errorf("events[%d]: %w", i, err)
		}
		v.Events = append(v.Events, b)
	}
	switch {
	case expect != nil:
		b, err := expect.MarshalJSON()
		if err != nil {
			return Vector{}, fmt.Errorf("expect: %w", err)
		}
		v.Expect.State = b
	default:
		v.Expect.Error = expectErr
	}
	return v, v.Validate()
}

// Counterexample is a log that broke a property, with the clause it broke and the state the spec
// requires (for snapshot properties, the whole-log fold).
type Counterexample struct {
	Clauses         []string      // the clause ids the property enforces; the first names the file
	Reason          string        // one line: which property failed and how (rapid's seed helps)
	Profile         fold.Profile  // folded as
	Snapshot        *fold.State   // nil: the events are the whole log
	SnapshotProfile *fold.Profile // the profile that wrote Snapshot, when older than Profile
	Events          []spi.Envelope
	Expect          fold.State // the state a correct fold reaches
}

// SaveCounterexample writes a counterexample as a fold vector under dir (normally
// vectors/corpus/counterexamples) and returns the file's path. Its id is
// counterexample/<first clause>-<content hash>, so saving the same case twice is a no-op and two
// different cases never collide. The expectation should be reviewed before the file is committed.
func SaveCounterexample(dir string, c Counterexample) (string, error) {
	if len(c.Clauses) == 0 {
		return "", errors.New("counterexample: no clause")
	}
	v, err := FoldVector("counterexample/pending", c.Reason, c.Clauses, c.Profile, c.Snapshot, c.SnapshotProfile, c.Events, &c.Expect, "")
	if err != nil {
		return "", fmt.Errorf("counterexample: %w", err)
	}
	h := fnv.New64a()
	for _, part := range [][]byte{[]byte(v.Profile), []byte(v.SnapshotProfile), v.Snapshot, v.Expect.State} {
		h.Write(part)
		h.Write([]byte{0})
	}
	for _, e := range v.Events {
		h.Write(e)
	}
	slug := strings.ToLower(strings.NewReplacer(".", "-", "_", "-").Replace(c.Clauses[0]))
	v.ID = fmt.Sprintf("counterexample/%s-%016x", slug, h.Sum64())
	data, err := v.MarshalFile()
	if err != nil {
		return "", fmt.Errorf("counterexample: %w", err)
	}
	path := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(v.ID, "counterexample/"))+".json")
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, data) {
			return path, nil
		}
		return "", fmt.Errorf("counterexample: %s exists with other content", path)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, outfile.WriteFile(path, data)
}
