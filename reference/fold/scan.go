package fold

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects the fold, the decoder and the canonical
// encoder accept (the same bound encoding/json applies). Deeper input is refused with an error,
// never a stack overflow.
const MaxDepth = 10000

// errSyntax is wrapped by every scanner error.
var errSyntax = errors.New("invalid JSON")

// SyntaxError is invalid JSON at byte Offset of the value read.
type SyntaxError struct {
	Offset int
	What   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.What)
}
func (e *SyntaxError) Unwrap() error { return errSyntax }

func syntaxErr(i int, what string) error {
	return &SyntaxError{Offset: i, What: what}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// trimRaw returns b without surrounding JSON whitespace.
func trimRaw(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// skipValue validates the JSON value starting at b[i] (no leading space) and returns the index just
// past it. It is strict (RFC 8259 grammar) and bounded by MaxDepth.
func skipValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return i, syntaxErr(i, "unexpected end of input")
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		if depth >= MaxDepth {
			return i, syntaxErr(i, fmt.Sprintf("nesting deeper than %d", MaxDepth))
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, syntaxErr(i, "want an object key")
			}
			var err error
			if i, err = skipString(b, i); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, syntaxErr(i, "want ':'")
			}
			i = skipSpace(b, i+1)
			if i, err = skipValue(b, i, depth+1); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, syntaxErr(i, "unterminated object")
			}
			if b[i] == '}' {
				return i + 1, nil
			}
			if b[i] != ',' {
				return i, syntaxErr(i, "want ',' or '}'")
			}
			i = skipSpace(b, i+1)
		}
	case c == '[':
		if depth >= MaxDepth {
			return i, syntaxErr(i, fmt.Sprintf("nesting deeper than %d", MaxDepth))
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = skipValue(b, i, depth+1); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, syntaxErr(i, "unterminated array")
			}
			if b[i] == ']' {
				return i + 1, nil
			}
			if b[i] != ',' {
				return i, syntaxErr(i, "want ',' or ']'")
			}
			i = skipSpace(b, i+1)
		}
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	default:
		return i, syntaxErr(i, fmt.Sprintf("unexpected character %q", c))
	}
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, syntaxErr(i, "invalid literal")
	}
	return i + len(lit), nil
}

func skipNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return i, syntaxErr(start, "invalid number")
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return i, syntaxErr(start, "invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return i, syntaxErr(start, "invalid number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return i, syntaxErr(start, "invalid number")
		}
	}
	return i, nil
}

// strPlain marks the bytes a string may hold without a closer look: anything but '"', '\\'
// and control characters.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipString validates the string starting at b[i] == '"' and returns the index past its closing quote.
func skipString(b []byte, i int) (int, error) {
	end, _, err := skipStringSpecial(b, i)
	return end, err
}

// skipStringSpecial is skipString that also reports whether the string's body holds an escape or
// a byte above 0x7F: when it does not, the body is its own decoding (hasEscape would say false).
func skipStringSpecial(b []byte, i int) (int, bool, error) {
	start := i
	var high uint64 // the bytes seen, or-ed: a bit 7 set when one was not ASCII
	i++
	for i < len(b) {
		for i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			if !plainWord(w) {
				break
			}
			high |= w
			i += 8
		}
		for i < len(b) && strPlain[b[i]] {
			high |= uint64(b[i])
			i++
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, high&highBits != 0, nil
		case c == '\\':
			high = highBits
			if i+1 >= len(b) {
				return i, true, syntaxErr(i, "unterminated escape")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex4(b[i+2:i+6]) {
					return i, true, syntaxErr(i, "invalid \\u escape")
				}
				i += 6
			default:
				return i, true, syntaxErr(i, "invalid escape")
			}
		default:
			return i, true, syntaxErr(i, "control character in string")
		}
	}
	return i, true, syntaxErr(start, "unterminated string")
}

// plain8 reports whether none of the 8 bytes of b ends or escapes a string or is a control
// character (a byte below 0x20, '"' or '\\'), testing the word at once: the exact "has a byte
// less than n" and "has a zero byte" bit tricks.
func plain8(b []byte) bool { return plainWord(binary.LittleEndian.Uint64(b)) }

// highBits is bit 7 of each byte of a word.
const highBits = 0x8080808080808080

// plainWord is plain8 of the 8 bytes of w (little-endian).
func plainWord(w uint64) bool {
	const ones = 0x0101010101010101
	q := w ^ (ones * '"')
	s := w ^ (ones * '\\')
	return ((w-ones*0x20)&^w|(q-ones)&^q|(s-ones)&^s)&highBits == 0
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
			return false
		}
	}
	return true
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// validJSON reports whether b holds exactly one JSON value (surrounding whitespace allowed).
func validJSON(b []byte) error {
	i := skipSpace(b, 0)
	j, err := skipValue(b, i, 0)
	if err != nil {
		return err
	}
	if j = skipSpace(b, j); j != len(b) {
		return syntaxErr(j, "trailing data after the value")
	}
	return nil
}

// eachField calls fn for every member of the JSON object raw (surrounding whitespace allowed) with
// the key unescaped into scratch-backed bytes (valid only during the call) and the raw value. It
// reports ok=false when raw is not an object. Duplicate keys are all reported, in order, so a
// caller that assigns keeps the last one (as JSON.parse does).
func eachField(raw []byte, fn func(key, val []byte) error) (bool, error) {
	return eachFieldMode(raw, false, fn)
}

// eachFieldMode is eachField; trusted skips values without validating them, for text a
// validating decoder already read (DecodeLog, FoldBytes).
func eachFieldMode(raw []byte, trusted bool, fn func(key, val []byte) error) (bool, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false, nil
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return true, endsAt(raw, i+1)
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return true, syntaxErr(i, "want an object key")
		}
		ks := i
		var ke int
		var err error
		special := true
		if trusted {
			ke, special = skipStringTrustedEsc(raw, i)
		} else if ke, err = skipString(raw, i); err != nil {
			return true, err
		}
		key := raw[ks+1 : ke-1]
		if special && hasEscape(key) {
			key = appendUnescaped(nil, key) // rare: an escaped key
		}
		i = skipSpace(raw, ke)
		if i >= len(raw) || raw[i] != ':' {
			return true, syntaxErr(i, "want ':'")
		}
		i = skipSpace(raw, i+1)
		vs := i
		if trusted {
			i = skipTrusted(raw, i)
		} else if i, err = skipValue(raw, i, 1); err != nil {
			return true, err
		}
		if err := fn(key, raw[vs:i]); err != nil {
			return true, err
		}
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return true, syntaxErr(i, "unterminated object")
		}
		if raw[i] == '}' {
			return true, endsAt(raw, i+1)
		}
		if raw[i] != ',' {
			return true, syntaxErr(i, "want ',' or '}'")
		}
		i = skipSpace(raw, i+1)
	}
}

// endsAt reports an error unless only white space follows offset i: an object read by
// eachFieldMode must be the whole text ("{}}" is not an object with trailing space).
func endsAt(raw []byte, i int) error {
	if j := skipSpace(raw, i); j != len(raw) {
		return syntaxErr(j, "trailing data after the value")
	}
	return nil
}

// eachElem calls fn for every element of the JSON array raw. ok=false when raw is not an array.
func eachElem(raw []byte, fn func(val []byte) error) (bool, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false, nil
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return true, nil
	}
	for {
		vs := i
		var err error
		if i, err = skipValue(raw, i, 1); err != nil {
			return true, err
		}
		if err := fn(raw[vs:i]); err != nil {
			return true, err
		}
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return true, syntaxErr(i, "unterminated array")
		}
		if raw[i] == ']' {
			return true, nil
		}
		if raw[i] != ',' {
			return true, syntaxErr(i, "want ',' or ']'")
		}
		i = skipSpace(raw, i+1)
	}
}

// hasEscape reports whether a string body must be decoded rather than copied: it holds an escape
// or a byte sequence that is not valid UTF-8.
func hasEscape(s []byte) bool {
	for i, c := range s {
		if c == '\\' {
			return true
		}
		if c >= utf8.RuneSelf {
			return !utf8.Valid(s[i:]) || hasBackslash(s[i:])
		}
	}
	return false
}

func hasBackslash(s []byte) bool {
	for _, c := range s {
		if c == '\\' {
			return true
		}
	}
	return false
}

// appendUnescaped appends the decoded content of a JSON string body (without quotes, already
// validated) to dst. Strings are kept as WTF-8: a lone surrogate escape becomes the 3-byte
// generalised UTF-8 form of its code unit, so it survives to the canonical encoder, which writes it
// back as \udXXX as JavaScript does.
func appendUnescaped(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			if c < utf8.RuneSelf {
				dst = append(dst, c)
				i++
				continue
			}
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, "\uFFFD"...) // a raw invalid byte decodes to U+FFFD
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if r < 0xDC00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if r2 := hex4(s[i+2:]); r2 >= 0xDC00 && r2 <= 0xDFFF {
						dst = utf8.AppendRune(dst, utf16.DecodeRune(r, r2))
						i += 6
						continue
					}
				}
				dst = appendWTF8Surrogate(dst, r)
				continue
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

// appendWTF8Surrogate writes a surrogate code unit in the generalised 3-byte UTF-8 form.
func appendWTF8Surrogate(dst []byte, r rune) []byte {
	return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// stringBytes returns the decoded content of the raw JSON string v: a sub-slice of v when it
// holds no escape (no allocation), else a fresh decoding.
func stringBytes(v []byte) ([]byte, bool) {
	v = trimRaw(v)
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	body := v[1 : len(v)-1]
	if !hasEscape(body) {
		return body, true
	}
	return appendUnescaped(make([]byte, 0, len(body)), body), true
}

// stringValue decodes the raw JSON value v when it is a string.
func stringValue(v []byte) (string, bool) {
	v = trimRaw(v)
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	if !hasEscape(body) {
		return string(body), true
	}
	return string(appendUnescaped(make([]byte, 0, len(body)), body)), true
}

// isNull reports whether raw is the JSON literal null.
func isNull(raw []byte) bool { return string(trimRaw(raw)) == "null" }

// isTrue reports whether raw is the JSON literal true.
func isTrue(raw []byte) bool { return string(trimRaw(raw)) == "true" }

// isNumber reports whether raw is a JSON number.
func isNumber(raw []byte) bool {
	raw = trimRaw(raw)
	return len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))
}

// isObject reports whether raw is a JSON object.
func isObject(raw []byte) bool {
	raw = trimRaw(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// isArray reports whether raw is a JSON array.
func isArray(raw []byte) bool {
	raw = trimRaw(raw)
	return len(raw) > 0 && raw[0] == '['
}

// skipTrusted returns the index past the JSON value at b[i], known to be valid JSON: it only
// tracks strings and nesting, and finds a string's end with bytes.IndexByte.
func skipTrusted(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipStringTrusted(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipStringTrusted(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
		i++
	}
	return i
}

// skipStringTrusted returns the index past the valid JSON string starting at b[i] == '"', and
// whether its body holds a backslash or a non-ASCII byte (then it may need decoding).
func skipStringTrusted(b []byte, i int) int {
	end, _ := skipStringTrustedEsc(b, i)
	return end
}

func skipStringTrustedEsc(b []byte, i int) (int, bool) {
	special := false
	for j := i + 1; j < len(b); j++ {
		for j+8 <= len(b) { // eight bytes at a time while none is '"', '\\' or above 0x7F
			w := binary.LittleEndian.Uint64(b[j:])
			if !plainWord(w) || w&highBits != 0 {
				break
			}
			j += 8
		}
		if j >= len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, special
		case c == '\\':
			special = true
			j++
		case c >= 0x80:
			special = true
		}
	}
	return len(b), special
}

// member is one member of a JSON object as JSON.parse keeps it.
type member struct {
	key string
	val []byte
}

// objectMembers returns the members of the JSON object raw (already validated) as JSON.parse
// keeps them (I-FOLD-31): one per key, with the value of its last occurrence, in the order the
// keys first appear. ok is false when raw is not an object. It is for the cold readers (a carry,
// a snapshot), where a repeated key must be judged by its last value only.
func objectMembers(raw []byte) ([]member, bool) {
	var out []member
	var index map[string]int // built once the object is too long for a scan per key
	ok, _ := eachField(raw, func(k, v []byte) error {
		if index == nil && len(out) >= 16 {
			index = make(map[string]int, 2*len(out))
			for i, m := range out {
				index[m.key] = i
			}
		}
		if index != nil {
			if i, dup := index[string(k)]; dup {
				out[i].val = v
				return nil
			}
			index[string(k)] = len(out)
		} else {
			for i := range out {
				if out[i].key == string(k) {
					out[i].val = v
					return nil
				}
			}
		}
		out = append(out, member{key: string(k), val: v})
		return nil
	})
	return out, ok
}

// hasProtoKey reports whether the JSON object raw has a __proto__ key (false for a non-object).
func hasProtoKey(raw []byte) bool {
	proto := false
	eachField(raw, func(k, _ []byte) error { //nolint:errcheck // validated
		proto = proto || string(k) == protoKey
		return nil
	})
	return proto
}
