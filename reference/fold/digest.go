package fold

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
)

// EmitDigest returns the emit identity of spec §3 / DESIGN §3.4: 16 lowercase hex digits of FNV-1a
// 64 over the UTF-8 bytes of "<segment>|<canonical JSON of [eventType, payload]>". payload is a
// JSON text; invalid JSON (no JSON form) is an error, and such an emit is appended unstamped.
func EmitDigest(segment int, eventType string, payload json.RawMessage) (string, error) {
	if segment < 0 {
		return "", fmt.Errorf("emit digest: segment %d is negative", segment)
	}
	if err := validJSON(payload); err != nil {
		return "", fmt.Errorf("emit digest: payload: %w", err)
	}
	buf := strconv.AppendInt(make([]byte, 0, 32+len(payload)), int64(segment), 10)
	buf = append(buf, '|', '[')
	buf = appendQuoted(buf, eventType)
	buf = append(buf, ',')
	var err error
	if buf, err = appendCanonicalRaw(buf, trimRaw(payload), 1); err != nil {
		return "", fmt.Errorf("emit digest: payload: %w", err)
	}
	buf = append(buf, ']')
	return digestBytes(buf), nil
}

// EmitDigestOf is EmitDigest for a Go value; a value with no JSON form is an error.
func EmitDigestOf(segment int, eventType string, payload any) (string, error) {
	b, err := Canonical(payload)
	if err != nil {
		return "", fmt.Errorf("emit digest: payload: %w", err)
	}
	return EmitDigest(segment, eventType, b)
}

func digestBytes(b []byte) string {
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf("%016x", h.Sum64())
}
