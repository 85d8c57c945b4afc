package fold

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// CanonicalJSON returns the canonical form (DESIGN §3.3, RFC 8785) of the JSON text raw: exactly
// what JavaScript's JSON.stringify prints for JSON.parse(raw) with every object's keys sorted by
// UTF-16 code units. Numbers are IEEE doubles printed as ECMAScript does (1e+21, 1e-7, -0 as 0; a
// literal beyond the double range parses to Infinity and prints null, as in JavaScript); a
// repeated key keeps its last value; strings are escaped minimally (no HTML escaping, U+2028 and
// U+2029 literal, a lone surrogate as \udXXX). Invalid JSON is an error, never a panic.
func CanonicalJSON(raw []byte) ([]byte, error) {
	if err := validJSON(raw); err != nil {
		return nil, err
	}
	return appendCanonicalRaw(make([]byte, 0, len(raw)), trimRaw(raw), 0)
}

// Canonical returns the canonical JSON of a Go value. nil, bool, string, float64 (and the other
// numeric kinds), json.Number, json.RawMessage, []any, map[string]any and map[string]json.RawMessage
// are encoded directly; any other value goes through encoding/json first. A value with no JSON
// form (NaN, ±Inf, a channel, a function, a cycle) is an error: spec §3 appends such an emit unstamped.
func Canonical(v any) ([]byte, error) {
	return appendCanonical(nil, v, 0)
}

func appendCanonical(dst []byte, v any, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return dst, fmt.Errorf("canonical: nesting deeper than %d", MaxDepth)
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return appendQuoted(dst, x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return dst, fmt.Errorf("canonical: %v has no JSON form", x)
		}
		return appendNumber(dst, x), nil
	case float32:
		return appendCanonical(dst, float64(x), depth)
	case int:
		return appendNumber(dst, float64(x)), nil
	case int64:
		return appendNumber(dst, float64(x)), nil
	case int32:
		return appendNumber(dst, float64(x)), nil
	case uint64:
		return appendNumber(dst, float64(x)), nil
	case json.Number:
		return appendCanonicalRaw(dst, []byte(x), depth)
	case json.RawMessage:
		if err := validJSON(x); err != nil {
			return dst, err
		}
		return appendCanonicalRaw(dst, trimRaw(x), depth)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendCanonical(dst, e, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		keys := sortedKeys(x)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendCanonical(dst, x[k], depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case map[string]json.RawMessage:
		keys := sortedKeys(x)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendCanonical(dst, x[k], depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	rv := reflect.ValueOf(v)
	if k := rv.Kind(); k == reflect.Chan || k == reflect.Func || k == reflect.Complex64 || k == reflect.Complex128 {
		return dst, fmt.Errorf("canonical: a %s has no JSON form", rv.Type())
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, fmt.Errorf("canonical: %w", err)
	}
	return appendCanonicalRaw(dst, b, depth)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortUTF16(keys)
	return keys
}

// sortUTF16 sorts keys by UTF-16 code units. For ASCII keys that is byte order, which sorts
// several times faster.
func sortUTF16(keys []string) {
	for _, k := range keys {
		for i := 0; i < len(k); i++ {
			if k[i] >= utf8.RuneSelf {
				slices.SortFunc(keys, compareUTF16)
				return
			}
		}
	}
	sortBytewise(keys)
}

// rawMember is one object member during canonical transcoding.
type rawMember struct {
	key string
	val []byte
}

// appendCanonicalRaw transcodes one validated JSON value (no surrounding space) to canonical form.
func appendCanonicalRaw(dst, raw []byte, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return dst, fmt.Errorf("canonical: nesting deeper than %d", MaxDepth)
	}
	if len(raw) == 0 {
		return dst, syntaxErr(0, "empty value")
	}
	switch c := raw[0]; {
	case c == '"':
		body := raw[1 : len(raw)-1]
		if !hasEscape(body) && plainString(body) {
			dst = append(dst, '"')
			dst = append(dst, body...)
			return append(dst, '"'), nil
		}
		return appendQuoted(dst, string(appendUnescaped(nil, body))), nil
	case c == 't' || c == 'f' || c == 'n':
		return append(dst, raw...), nil
	case (c == '[' || c == '{') && depth >= deepFrom:
		return appendIndexed(dst, raw, indexContainers(raw), 0, depth) // linear however deep
	case c == '[':
		dst = append(dst, '[')
		first := true
		_, err := eachElem(raw, func(v []byte) error {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			var err error
			dst, err = appendCanonicalRaw(dst, v, depth+1)
			return err
		})
		if err != nil {
			return dst, err
		}
		return append(dst, ']'), nil
	case c == '{':
		var small [8]rawMember // most objects are small: no allocation for their members
		members := small[:0]
		_, err := eachField(raw, func(k, v []byte) error {
			// a read-only view of the key: raw is not modified while this call runs
			members = append(members, rawMember{unsafe.String(unsafe.SliceData(k), len(k)), v})
			return nil
		})
		if err != nil {
			return dst, err
		}
		return appendMembers(dst, members, depth, appendCanonicalRaw)
	default:
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil && !math.IsInf(f, 0) {
			return dst, syntaxErr(0, "invalid number")
		}
		if math.IsInf(f, 0) { // JSON.parse gives ±Infinity; JSON.stringify prints null
			return append(dst, "null"...), nil
		}
		return appendNumber(dst, f), nil
	}
}

// appendMembers appends the canonical object of members: sorted by the UTF-16 code units of their
// keys (stable, then the last of equal keys kept: JSON.parse keeps the last value), each value
// transcoded by value at depth+1.
func appendMembers(dst []byte, members []rawMember, depth int, value func(dst, raw []byte, depth int) ([]byte, error)) ([]byte, error) {
	slices.SortStableFunc(members, func(a, b rawMember) int { return compareUTF16(a.key, b.key) })
	dst = append(dst, '{')
	n := 0
	for i, m := range members {
		if i+1 < len(members) && members[i+1].key == m.key {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = appendQuoted(dst, m.key)
		dst = append(dst, ':')
		var err error
		if dst, err = value(dst, m.val, depth+1); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// plainString reports whether a string body can be copied as is: valid UTF-8 (no surrogate
// encodings) without characters that need escaping.
func plainString(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		i += size
	}
	return true
}

// appendQuoted writes s (WTF-8) as JSON.stringify does.
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	plain := 0 // the printable ASCII prefix, copied whole
	for plain < len(s) && s[plain] >= 0x20 && s[plain] < utf8.RuneSelf && s[plain] != '"' && s[plain] != '\\' {
		plain++
	}
	dst = append(dst, s[:plain]...)
	for i := plain; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				dst = append(dst, '\\', '"')
			case c == '\\':
				dst = append(dst, '\\', '\\')
			case c >= 0x20:
				dst = append(dst, c)
			case c == '\b':
				dst = append(dst, '\\', 'b')
			case c == '\f':
				dst = append(dst, '\\', 'f')
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			continue
		}
		if r, ok := wtf8Surrogate(s[i:]); ok {
			dst = append(dst, '\\', 'u', hex[r>>12], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\uFFFD"...) // invalid byte: JavaScript never sees it; as a decoder would
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// wtf8Surrogate decodes a 3-byte generalised UTF-8 surrogate (ED A0..BF xx) at the start of s.
func wtf8Surrogate(s string) (rune, bool) {
	if len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && s[2] >= 0x80 && s[2] <= 0xBF {
		return 0xD000 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), true
	}
	return 0, false
}

// nextUnit returns the UTF-16 code units of the character at s[i] (a, and b != 0 for a pair) and its size.
func nextUnits(s string, i int) (a, b uint16, size int) {
	c := s[i]
	if c < utf8.RuneSelf {
		return uint16(c), 0, 1
	}
	if r, ok := wtf8Surrogate(s[i:]); ok {
		return uint16(r), 0, 3
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		return 0xFFFD, 0, 1
	}
	if r >= 0x10000 {
		r -= 0x10000
		return uint16(0xD800 + r>>10), uint16(0xDC00 + r&0x3FF), size
	}
	return uint16(r), 0, size
}

// compareUTF16 orders two WTF-8 strings by their UTF-16 code units (RFC 8785 §3.2.3).
func compareUTF16(x, y string) int {
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		if x[i] < utf8.RuneSelf && y[j] < utf8.RuneSelf {
			if x[i] != y[j] {
				return int(x[i]) - int(y[j])
			}
			i++
			j++
			continue
		}
		a1, a2, n := nextUnits(x, i)
		b1, b2, m := nextUnits(y, j)
		if a1 != b1 {
			return int(a1) - int(b1)
		}
		if a2 != b2 { // a lone unit (0) sorts before any low surrogate, as the shorter sequence does
			return int(a2) - int(b2)
		}
		i += n
		j += m
	}
	switch {
	case i < len(x):
		return 1
	case j < len(y):
		return -1
	}
	return 0
}

// appendNumber writes f as ECMAScript Number::toString does (f is finite).
func appendNumber(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	if f <= maxSafeInt && f == math.Trunc(f) { // exact: the integer's digits
		return strconv.AppendInt(dst, int64(f), 10)
	}
	if f < 1e21 && f == math.Trunc(f) {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d[.ddd]e±XX, shortest round-trip digits
	mant, exp := e, 0
	for k := range e {
		if e[k] == 'e' {
			mant = e[:k]
			exp, _ = strconv.Atoi(string(e[k+1:]))
			break
		}
	}
	var digits [24]byte
	nd := 0
	for _, c := range mant {
		if c != '.' {
			digits[nd] = c
			nd++
		}
	}
	d := digits[:nd]
	n := exp + 1 // the decimal point sits after n digits
	switch {
	case nd <= n && n <= 21:
		dst = append(dst, d...)
		for range n - nd {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if nd > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
