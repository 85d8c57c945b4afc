package kits

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/loom-kernel/loom-conform/spi"
)

// respell must change the bytes and keep the value, or the respelled-resend checks test nothing.
func TestRespellKeepsValueChangesBytes(t *testing.T) {
	for _, raw := range []string{
		`{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567890}`,
		`{"k":10,"t":"v"}`, `"text"`, `[1,{"b":true,"a":null}]`, `{"e":1e+21,"f":-0.000001,"u":"ünï 🧵"}`,
	} {
		got := respell(json.RawMessage(raw))
		if bytes.Equal(got, []byte(raw)) {
			t.Errorf("respell(%s) = the same bytes, want another spelling", raw)
		}
		if !json.Valid(got) || !spi.SameJSON(got, json.RawMessage(raw)) {
			t.Errorf("respell(%s) = %s, want the same JSON value", raw, got)
		}
	}
}
