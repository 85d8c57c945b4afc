package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/jsondiff"
)

// JSON Pointers (RFC 6901) into a state as the fold printed it: where a value is in the text, so a
// comparison can set it aside or compare it alone (choicepaths.go).

// pointerTokens splits an RFC 6901 JSON Pointer into its unescaped reference tokens. The empty
// pointer (the whole document) is refused: a choice that decides a vector's whole answer makes
// the vector one of choices alone.
func pointerTokens(p string) ([]string, error) {
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("%q: want a JSON Pointer starting with / (RFC 6901)", p)
	}
	if !strings.Contains(p, "~") {
		return strings.Split(p[1:], "/"), nil
	}
	var out []string
	for _, raw := range strings.Split(p[1:], "/") {
		var b strings.Builder
		for i := 0; i < len(raw); i++ {
			if raw[i] != '~' {
				b.WriteByte(raw[i])
				continue
			}
			if i+1 < len(raw) && (raw[i+1] == '0' || raw[i+1] == '1') {
				b.WriteByte("~/"[raw[i+1]-'0'])
				i++
				continue
			}
			return nil, fmt.Errorf("%q: ~ must be followed by 0 or 1 (RFC 6901)", p)
		}
		out = append(out, b.String())
	}
	return out, nil
}

// spans returns the byte range of the value each pointer names in the JSON text b, read in one
// pass by encoding/json's tokenizer (numbers kept as written); a pointer b does not have (or that
// is not a pointer) is not in the map, and none is when b is not JSON on the way to it. A repeated
// member counts by its last occurrence, as JSON.parse reads it.
func spans(b []byte, pointers []string) map[string][2]int {
	w := walker{b: b, leaf: map[string]bool{}, inner: map[string]bool{}, found: map[string][2]int{}}
	canon := map[string]string{} // a pointer as written -> its escaped form
	for _, p := range pointers {
		toks, err := pointerTokens(p)
		if err != nil {
			continue
		}
		at := ""
		for _, t := range toks {
			w.inner[at] = true
			at += "/" + jsondiff.Token(t)
		}
		w.leaf[at], canon[p] = true, at
	}
	w.dec = json.NewDecoder(bytes.NewReader(b))
	w.dec.UseNumber()
	if w.walk("") != nil {
		return nil
	}
	out := map[string][2]int{}
	for p, at := range canon {
		if r, ok := w.found[at]; ok {
			out[p] = r
		}
	}
	return out
}

// walker finds the ranges of the values whose pointers are leaves, descending only into the
// values whose pointers are inner (a leaf's ancestors).
type walker struct {
	b           []byte
	dec         *json.Decoder
	leaf, inner map[string]bool
	found       map[string][2]int
}

// walk reads the whole value at the decoder's position, whose pointer is at; an error is text that
// is not JSON.
func (w *walker) walk(at string) error {
	start := int(w.dec.InputOffset())
	for start < len(w.b) && bytes.IndexByte([]byte(" \t\n\r,:"), w.b[start]) >= 0 {
		start++
	}
	if !w.inner[at] {
		if err := skip(w.dec); err != nil {
			return err
		}
	} else if err := w.members(at); err != nil {
		return err
	}
	if w.leaf[at] {
		w.found[at] = [2]int{start, int(w.dec.InputOffset())}
	}
	return nil
}

// members reads the value at the decoder's position, whose pointer is at, walking each member or
// element of a container.
func (w *walker) members(at string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	open, isDelim := tok.(json.Delim)
	if !isDelim {
		return nil // a scalar has no members
	}
	seen := map[string]bool{}
	for n := 0; w.dec.More(); n++ {
		next := at + "/" + strconv.Itoa(n)
		if open == '{' {
			key, err := w.dec.Token()
			if err != nil {
				return err
			}
			k, _ := key.(string)
			next = at + "/" + jsondiff.Token(k)
			if seen[next] { // a later repeat of the key replaces what the earlier one held
				for p := range w.found {
					if p == next || strings.HasPrefix(p, next+"/") {
						delete(w.found, p)
					}
				}
			}
			seen[next] = true
		}
		if err := w.walk(next); err != nil {
			return err
		}
	}
	_, err = w.dec.Token() // the closing delimiter
	return err
}

// skip reads one whole value from dec.
func skip(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, isDelim := tok.(json.Delim); isDelim {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// masked is text with the value at every pointer replaced by null, so two texts masked alike are
// equal exactly when they agree outside those values and both have each member; a pointer text
// does not have is left as it is (the other side's null then differs from its absence).
func masked(text []byte, pointers []string) []byte {
	var rs [][2]int
	for _, r := range spans(text, pointers) {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] || rs[i][0] == rs[j][0] && rs[i][1] > rs[j][1] })
	var out []byte
	at := 0
	for _, r := range rs {
		if r[0] < at { // inside a range already masked
			continue
		}
		out = append(append(out, text[at:r[0]]...), "null"...)
		at = r[1]
	}
	return append(out, text[at:]...)
}

// valuesAt is the text of the value at each pointer text has.
func valuesAt(text []byte, pointers []string) map[string]string {
	out := map[string]string{}
	for p, r := range spans(text, pointers) {
		out[p] = string(text[r[0]:r[1]])
	}
	return out
}

// has reports whether the decoded JSON value v has a value at the pointer tokens toks.
func has(v any, toks []string) bool {
	for _, t := range toks {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[t]; !ok {
				return false
			}
		case []any:
			n, err := strconv.Atoi(t)
			if err != nil || n < 0 || n >= len(x) || strconv.Itoa(n) != t {
				return false
			}
			v = x[n]
		default:
			return false
		}
	}
	return true
}
