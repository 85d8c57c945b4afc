// Package fold is the reference fold of the Loom kernel event log (spec §3, §4; DESIGN §3, §4):
// state = Fold(profile, snapshot, events), the schema profiles 1.20.0 .. 1.26.0, the canonical
// JSON encoder (RFC 8785) and the emit digest (ADR 0102).
//
// The API other packages build on:
//
//   - Fold(p, snapshot, events) (State, error): pure; never writes to its arguments.
//   - FoldBytes(p, snapshot, raw), FoldReader(p, snapshot, r, opts): decode and fold in one pass
//     (what `loom-conform fold` runs); the same result as DecodeLog + Fold.
//   - Current(), ProfileFor("1.23.0"), Profiles(): the schema profile a fold behaves as.
//   - NormalizeSnapshotState(s, writtenBy): read a snapshot an older fold wrote;
//     NormalizeSnapshotFor(s, writtenBy, readBy) when the reader is not the current profile.
//   - State: MarshalJSON prints canonical JSON (equal states have equal bytes); ParseState reads it.
//   - DecodeLog(r, opts): envelopes from a JSON array or NDJSON, with errors naming index and field.
//   - DecodeEnvelope(i, raw), Envelopes (a json.Unmarshaler): the same envelope decoder for
//     protocols carrying envelopes (the store bridge, the wire carrier); InputError.Kind() names
//     the rule broken (invalid-envelope, sequence, mixed-executions, invalid-snapshot).
//   - Canonical(v), CanonicalJSON(raw): the canonical JSON of a Go value or a JSON text.
//   - EmitDigest(segment, eventType, payload), EmitDigestOf: the metadata.flowEmit stamp.
//   - EventShapes(): the payload catalogue docs/events.md is generated from.
//   - ResourceDimensions(): the six _resources dimensions (spec §8).
//
// Example:
//
//	events, err := fold.DecodeLogBytes(logJSON)
//	if err != nil {
//		return err // *fold.InputError: "envelope 3: sequence: got 7, want 4 ..."
//	}
//	st, err := fold.Fold(fold.Current(), nil, events)
//	if err != nil {
//		return err
//	}
//	out, _ := st.MarshalJSON() // {"frames":{...},"sequence":41,"startedAt":...,"status":"running",...}
//
//	d, _ := fold.EmitDigest(0, "progress", json.RawMessage(`{"p":1}`)) // "e5dc3cdf3f69d31d"
//
// Interpretations of the spec this package applies are the I-FOLD-n clauses in spec/interp_fold.go
// (docs/interpretations.md).
package fold
