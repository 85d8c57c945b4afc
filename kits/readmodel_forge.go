package kits

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
)

// forgedCursor is a cursor the store never issued and what was done to make it.
type forgedCursor struct {
	cursor, how string
}

// cursorEncodings are the base64 alphabets a store may wrap its cursor in, tried in this order.
var cursorEncodings = []struct {
	name string
	enc  *base64.Encoding
}{
	{"base64url", base64.RawURLEncoding},
	{"base64", base64.RawStdEncoding},
	{"padded base64url", base64.URLEncoding},
	{"padded base64", base64.StdEncoding},
}

// maxCursorAlterations bounds how many one-character alterations a cursor gets; they are spread
// evenly over the whole cursor, and every segment's first and last character is always among them.
const maxCursorAlterations = 64

// forgeCursors returns cursors derived from cur, which the store issued for the page ending at id
// after: cur with after replaced by absent (an id the model never held) wherever after is readable
// in cur — as text, or inside a base64 segment — and cur altered in one character at positions
// spread across its whole length. An alteration that reads back as the very same bytes (base64's
// padding bits, which a lenient decoder ignores) is not a different cursor and is left out.
func forgeCursors(cur, after, absent string) []forgedCursor {
	var out []forgedCursor
	seen := map[string]bool{cur: true}
	add := func(f, how string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, forgedCursor{f, how})
		}
	}
	if strings.Contains(cur, after) {
		add(strings.ReplaceAll(cur, after, absent), fmt.Sprintf("its text %q replaced by %q", after, absent))
	}
	segs := cursorSegments(cur)
	for _, s := range segs {
		seg := cur[s[0]:s[1]]
		for _, e := range cursorEncodings {
			b, err := e.enc.DecodeString(seg)
			if err != nil || !bytes.Contains(b, []byte(after)) {
				continue
			}
			f := cur[:s[0]] + e.enc.EncodeToString(bytes.ReplaceAll(b, []byte(after), []byte(absent))) + cur[s[1]:]
			add(f, fmt.Sprintf("%q replaced by %q inside its %s characters %d..%d", after, absent, e.name, s[0], s[1]-1))
		}
	}
	positions := map[int]bool{}
	for _, s := range segs {
		positions[s[0]], positions[s[1]-1] = true, true
	}
	step := max(1, len(cur)/maxCursorAlterations)
	for i := 0; i < len(cur); i += step {
		positions[i] = true
	}
	positions[len(cur)-1] = true
	for i := range len(cur) {
		if !positions[i] {
			continue
		}
		alt := []byte(cur)
		switch c := alt[i]; {
		case c >= 'a' && c < 'z', c >= 'A' && c < 'Z', c >= '0' && c < '9':
			alt[i]++
		case c == 'z', c == 'Z', c == '9':
			alt[i] = 'a'
		default:
			continue
		}
		if sameBytes(cur, string(alt), i, segs) {
			continue
		}
		add(string(alt), fmt.Sprintf("character %d of %d changed from %q to %q", i, len(cur), cur[i], alt[i]))
	}
	return out
}

// cursorSegments returns the [start, end) spans of cur's runs of base64 characters ("A-Za-z0-9-_+/="),
// the pieces a store may have encoded separately and joined with some separator.
func cursorSegments(cur string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(cur); i++ {
		in := i < len(cur) && isBase64Char(cur[i])
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	return out
}

func isBase64Char(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '+' || c == '/' || c == '='
}

// sameBytes reports whether alt, which differs from cur at position i, decodes to the same bytes
// as cur in the base64 segment holding i under some encoding both decode under leniently.
func sameBytes(cur, alt string, i int, segs [][2]int) bool {
	for _, s := range segs {
		if i < s[0] || i >= s[1] {
			continue
		}
		for _, e := range cursorEncodings {
			a, errA := e.enc.DecodeString(cur[s[0]:s[1]])
			b, errB := e.enc.DecodeString(alt[s[0]:s[1]])
			if errA == nil && errB == nil && bytes.Equal(a, b) {
				return true
			}
		}
	}
	return false
}
