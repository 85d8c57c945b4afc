package ingress

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// jsonNull returns a fresh JSON null (plans never share mutable bytes with a package variable).
func jsonNull() json.RawMessage { return json.RawMessage("null") }

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// orNull returns raw, or JSON null for an absent value.
func orNull(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return jsonNull()
	}
	return raw
}

// object decodes raw as a JSON object; ok is false for anything else.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

// str decodes raw as a JSON string.
func str(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// integer decodes raw as a JSON number holding an integer (1 and 1.0 alike).
func integer(raw json.RawMessage) (int64, bool) {
	var n json.Number
	if len(raw) == 0 || json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// finite decodes raw as a finite JSON number.
func finite(raw json.RawMessage) (float64, bool) {
	var n json.Number
	if len(raw) == 0 || json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// mustJSON marshals a value built by this package (maps of strings and raw JSON); it cannot fail.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("ingress: marshal of a package-built value failed: " + err.Error())
	}
	return b
}

// kernelMeta returns fresh metadata marking a kernel-written envelope.
func kernelMeta() json.RawMessage { return json.RawMessage(`{"kernel":true}`) }
