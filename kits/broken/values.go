package broken

import (
	"bytes"
	"encoding/json"
	"math/big"
	"reflect"
	"sort"
	"strconv"
)

// floatEqual reports whether a and b decode to equal values through float64 (absent equals only
// absent).
func floatEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
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

// reencodeLuaStyle re-encodes raw as a JSON library that does not tell an empty array from an
// empty object and prints numbers with 14 significant digits (Lua cjson's defaults, PHP's
// precision=14) does: `[]` comes back `{}`, 0.1234567890123456 comes back 0.12345678901235 and
// 10000000000000000000 comes back 1e+19 (equal) while 2^63 comes back 9.2233720368548e+18.
func reencodeLuaStyle(raw json.RawMessage) json.RawMessage {
	return rewriteJSON(raw, func(v any) any {
		switch x := v.(type) {
		case []any:
			if len(x) == 0 {
				return map[string]any{}
			}
		case json.Number:
			if f, err := x.Float64(); err == nil {
				return json.Number(strconv.FormatFloat(f, 'g', 14, 64))
			}
		}
		return v
	})
}

// wrapInt64 re-encodes raw as a store that reads integers into int64 does: an integer beyond
// int64 wraps around (2^63 comes back -2^63, 10^19 as -8446744073709551616).
func wrapInt64(raw json.RawMessage) json.RawMessage {
	return rewriteJSON(raw, func(v any) any {
		n, ok := v.(json.Number)
		if !ok {
			return v
		}
		i, ok := new(big.Int).SetString(string(n), 10)
		if !ok {
			return v
		}
		low := new(big.Int).Mod(i, new(big.Int).Lsh(big.NewInt(1), 64)) // the low 64 bits, two's complement
		return json.Number(strconv.FormatInt(int64(low.Uint64()), 10))
	})
}

// rewriteJSON decodes raw (numbers as json.Number), applies f to every value bottom-up and
// encodes the result; raw that does not decode comes back unchanged.
func rewriteJSON(raw json.RawMessage, f func(any) any) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return raw
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return f(v)
	}
	out, err := json.Marshal(walk(v))
	if err != nil {
		return raw
	}
	return out
}
