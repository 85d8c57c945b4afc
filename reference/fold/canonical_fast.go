package fold

import (
	"encoding/binary"
	"math"
	"strconv"
)

// appendRawLeaf appends the canonical form of the raw JSON leaf v found at depth of an encoded
// tree, exactly as appendCanonical(dst, json.RawMessage(v), depth) does. Most leaves the fold keeps
// are already canonical (no whitespace, sorted unique keys, shortest numbers, unescaped strings):
// those are checked in one pass and copied; any other leaf, valid or not, takes the transcoder.
func appendRawLeaf(dst, v []byte, depth int) ([]byte, error) {
	if end, ok := canonicalPrefix(v, 0, depth, 0); ok && end == len(v) {
		return append(dst, v...), nil
	}
	return appendCanonicalRawMessage(dst, v, depth)
}

// appendCanonicalRawMessage is the transcoding path of a json.RawMessage leaf.
func appendCanonicalRawMessage(dst, v []byte, depth int) ([]byte, error) {
	if err := validJSON(v); err != nil {
		return dst, err
	}
	return appendCanonicalRaw(dst, trimRaw(v), depth)
}

// canonicalPrefix reports whether the JSON value starting at b[i] is valid and already in the
// canonical form appendCanonicalRaw would write at depth (rel is the nesting inside the leaf,
// bounded as validJSON bounds it), and returns the index past it. It answers false whenever it is
// unsure: false only ever costs the transcoder.
func canonicalPrefix(b []byte, i, depth, rel int) (int, bool) {
	if depth > MaxDepth || i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return plainStringAt(b, i)
	case c == '{':
		if rel >= MaxDepth {
			return i, false
		}
		i++
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		var prev []byte
		for n := 0; ; n++ {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			ks := i + 1
			ke, ok := plainStringAt(b, i)
			if !ok {
				return i, false
			}
			key := b[ks : ke-1]
			if n > 0 && compareUTF16(string(prev), string(key)) >= 0 {
				return i, false // out of order or repeated: the transcoder sorts and keeps the last
			}
			prev = key
			i = ke
			if i >= len(b) || b[i] != ':' {
				return i, false
			}
			if i, ok = canonicalPrefix(b, i+1, depth+1, rel+1); !ok {
				return i, false
			}
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '}':
				return i + 1, true
			case ',':
				i++
			default:
				return i, false
			}
		}
	case c == '[':
		if rel >= MaxDepth {
			return i, false
		}
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = canonicalPrefix(b, i, depth+1, rel+1); !ok || i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ']':
				return i + 1, true
			case ',':
				i++
			default:
				return i, false
			}
		}
	case c == 't':
		return literalAt(b, i, "true")
	case c == 'f':
		return literalAt(b, i, "false")
	case c == 'n':
		return literalAt(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return canonicalNumberAt(b, i)
	}
	return i, false
}

func literalAt(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

// plainStringAt accepts a string without escapes whose body plainString copies as is.
func plainStringAt(b []byte, i int) (int, bool) {
	j := i + 1
	var high uint64 // the bytes seen, or-ed: a bit 7 set when one was not ASCII
	for j+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[j:])
		if !plainWord(w) {
			break
		}
		high |= w
		j += 8
	}
	for j < len(b) {
		c := b[j]
		if c == '"' {
			break
		}
		if c < 0x20 || c == '\\' {
			return i, false
		}
		high |= uint64(c)
		j++
	}
	if j >= len(b) {
		return i, false
	}
	if high&highBits != 0 && !plainString(b[i+1:j]) {
		return i, false
	}
	return j + 1, true
}

// canonicalNumberAt accepts a number that appendNumber would print with the same bytes.
func canonicalNumberAt(b []byte, i int) (int, bool) {
	j := i
	if b[j] == '-' {
		j++
	}
	intStart := j
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	digits := j - intStart
	if digits == 0 || (digits > 1 && b[intStart] == '0') {
		return i, false
	}
	simple := j >= len(b) || (b[j] != '.' && b[j] != 'e' && b[j] != 'E')
	if simple && digits <= 15 {
		if b[i] == '-' && b[intStart] == '0' {
			return i, false // -0 prints 0
		}
		return j, true // an integer of at most 15 digits is exact and prints as written
	}
	if !simple && b[j] == '.' {
		j++
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == k {
			return i, false
		}
		if j >= len(b) || (b[j] != 'e' && b[j] != 'E') {
			// No two decimals of at most 15 significant digits (DBL_DIG) name the same double, so
			// such a decimal is its double's shortest digits: it prints as written when it has no
			// trailing zero and, below 1, fewer than six zeros after the point (1e-7 form there).
			sig, lead := j-k, 0
			if digits == 1 && b[intStart] == '0' {
				for lead < j-k && b[k+lead] == '0' {
					lead++
				}
				sig -= lead
			} else {
				sig += digits
			}
			if sig > 0 && sig <= 15 && b[j-1] != '0' && lead < 6 {
				return j, true
			}
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == k {
			return i, false
		}
	}
	f, err := strconv.ParseFloat(string(b[i:j]), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return i, false
	}
	var buf [40]byte
	if string(appendNumber(buf[:0], f)) != string(b[i:j]) {
		return i, false
	}
	return j, true
}
