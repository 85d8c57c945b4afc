package broken

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
)

func floatEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return true // "no metadata" matches anything: a nullable column compared with IS NOT DISTINCT only when set
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// sameThroughFloat reports whether a and b decode to equal values through float64.
func sameThroughFloat(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// mergeObjects returns old || next as PostgreSQL's jsonb does: when both are objects, old's keys
// with next's added or replacing them; otherwise next.
func mergeObjects(old, next json.RawMessage) json.RawMessage {
	var a, b map[string]json.RawMessage
	if json.Unmarshal(old, &a) != nil || json.Unmarshal(next, &b) != nil || a == nil || b == nil {
		return next
	}
	for k, v := range b {
		a[k] = v
	}
	out, _ := json.Marshal(a)
	return out
}

func viaFloat(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

// reverseKeys re-encodes raw with every object's keys in reverse byte order; numbers and strings
// keep their exact text.
func reverseKeys(raw []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := writeReversed(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeReversed(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(keys)))
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			if err := writeReversed(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeReversed(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case json.Number:
		buf.WriteString(string(x))
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}
