package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Request is one line the harness writes to a foreign fold (docs/vectors.md, "protocol"). Which
// members are present depends on Kind; Events is always present for a fold request ([] for none).
type Request struct {
	Kind Kind   `json:"kind"`
	ID   string `json:"id"`

	Profile  string          `json:"profile,omitempty"`
	Snapshot json.RawMessage `json:"snapshot,omitempty"`
	// SnapshotProfile: the profile that wrote the snapshot, when it must be normalised.
	SnapshotProfile string             `json:"snapshotProfile,omitempty"`
	Events          *[]json.RawMessage `json:"events,omitempty"`

	Input *string `json:"input,omitempty"`

	Segment   *int            `json:"segment,omitempty"`
	EventType string          `json:"eventType,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
}

// Response is one line a foreign fold writes back: the request's id and either output (the
// canonical state, the canonical text or the digest, as a string) or error (an error kind).
type Response struct {
	ID      string  `json:"id"`
	Output  *string `json:"output,omitempty"`
	Error   string  `json:"error,omitempty"`
	Message string  `json:"message,omitempty"` // free text, shown in reports, never compared
}

// RequestFor builds the protocol request of a vector.
func RequestFor(v Vector) Request {
	r := Request{Kind: v.Kind, ID: v.ID}
	switch v.Kind {
	case KindFold:
		evs := v.Events
		if evs == nil {
			evs = []json.RawMessage{}
		}
		r.Profile, r.Snapshot, r.SnapshotProfile, r.Events = v.Profile, v.Snapshot, v.SnapshotProfile, &evs
	case KindCanonical:
		r.Input = v.Input
	case KindDigest:
		r.Segment, r.EventType, r.Payload = v.Segment, v.EventType, v.Payload
	}
	return r
}

// encodeLine writes v as one JSON line without HTML escaping.
func encodeLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode appends the newline
		return nil, err
	}
	return b.Bytes(), nil
}

// decodeResponse parses one response line strictly.
func decodeResponse(line []byte) (Response, error) {
	var r Response
	dec := json.NewDecoder(bytes.NewReader(line)) // unknown members are ignored (forward compatible)
	if err := dec.Decode(&r); err != nil {
		return Response{}, fmt.Errorf("response line is not a response object: %v", err)
	}
	if dec.More() {
		return Response{}, fmt.Errorf("response line holds more than one JSON value")
	}
	if (r.Output == nil) == (r.Error == "") {
		return Response{}, fmt.Errorf("response %q: want exactly one of output and error", r.ID)
	}
	return r, nil
}

// decodeRequest parses one request line (the serving side).
func decodeRequest(line []byte) (Request, error) {
	var r Request
	dec := json.NewDecoder(bytes.NewReader(line)) // unknown members are ignored (forward compatible)
	if err := dec.Decode(&r); err != nil {
		return Request{}, fmt.Errorf("request line is not a request object: %v", err)
	}
	return r, nil
}
