package carrier

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The members of a JSON object, walked without decoding it: the hot path of a syscall (its params
// and args) reads a handful of members, and decoding them through maps or a reflective decoder
// cost more than the kernel's step itself. The walk expects valid JSON (a request body passed
// json.Unmarshal's check before its params reach it); on anything else it reports false and the
// caller takes the strict decoder, whose answer (and error) stays the reference.

// eachMember calls fn with the raw key (between its quotes, escapes as written) and raw value of
// each member of the object obj, in order; fn returns false to stop the walk. It reports false when
// obj is not one well-formed object (with nothing but space after it) or fn stopped it.
func eachMember(obj []byte, fn func(key, val []byte) bool) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return skipSpace(obj, i+1) == len(obj)
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return false
		}
		kend := skipString(obj, i)
		if kend < 0 {
			return false
		}
		key := obj[i+1 : kend-1]
		i = skipSpace(obj, kend)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipSpace(obj, i+1)
		vend := skipValue(obj, i)
		if vend < 0 || !fn(key, obj[i:vend]) {
			return false
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return false
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return skipSpace(obj, i+1) == len(obj)
		default:
			return false
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] (a quote), or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j)
				if j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// plainKey reports whether a raw key reads as itself: no escapes and plain ASCII, so its bytes are
// the member's name.
func plainKey(k []byte) bool {
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// memberName is a raw key as the decoder names it (escapes resolved).
func memberName(k []byte) string {
	if plainKey(k) {
		return string(k)
	}
	var s string
	quoted := make([]byte, 0, len(k)+2)
	quoted = append(append(append(quoted, '"'), k...), '"')
	if json.Unmarshal(quoted, &s) != nil {
		return string(k)
	}
	return s
}

// plainString returns the text of a raw JSON string value without escapes in valid UTF-8 (the
// decoder gives exactly its bytes); ok is false for any other value.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}
