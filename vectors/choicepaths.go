package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spec"
)

// A fold vector that expects a state and cites a choice beside a required clause names, in
// choicePaths, the members of the expected state that choice decides (JSON Pointers, RFC 6901).
// Its answer is then compared as several assertions, each citing its own clauses (DESIGN §7.1, a
// tier per assertion):
//
//   - the state outside the choice paths, byte for byte, with every choice path's member present
//     but its value not compared, citing the vector's required clauses;
//   - for each choice, the values at its paths, byte for byte, citing that choice alone.
//
// So a fold that takes another legal option of a choice misses a recommendation, not a required
// vector, while a state that differs anywhere else, or lacks a member a choice path names, fails
// the required assertion. A path always names a member the expected state has (the loader refuses
// any other): where a choice decides whether a member is there at all, its path names the object
// that holds it.

// pointerTokens splits an RFC 6901 JSON Pointer into its unescaped reference tokens. The empty
// pointer (the whole document) is refused: a choice that decides a vector's whole answer makes
// the vector one of choices alone.
func pointerTokens(p string) ([]string, error) {
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("%q: want a JSON Pointer starting with / (RFC 6901)", p)
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

// span returns the byte range of the value the tokens name in the JSON text b, or ok false when b
// does not have it (or is not JSON on the way to it). The text is read by encoding/json's
// tokenizer (numbers kept as written); a repeated member counts by its last occurrence, as
// JSON.parse reads it.
func span(b []byte, tokens []string) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	start, end, ok, err := find(dec, b, tokens)
	return start, end, ok && err == nil
}

// find reads the whole value at dec's position and returns the range of the one tokens name in it;
// an error is text that is not JSON.
func find(dec *json.Decoder, b []byte, tokens []string) (start, end int, ok bool, err error) {
	if len(tokens) == 0 {
		start = int(dec.InputOffset())
		for start < len(b) && bytes.IndexByte([]byte(" \t\n\r,:"), b[start]) >= 0 {
			start++
		}
		if err := skip(dec); err != nil {
			return 0, 0, false, err
		}
		return start, int(dec.InputOffset()), true, nil
	}
	tok, err := dec.Token()
	if err != nil {
		return 0, 0, false, err
	}
	open, isDelim := tok.(json.Delim)
	if !isDelim {
		return 0, 0, false, nil // a scalar has no members
	}
	index, aerr := strconv.Atoi(tokens[0])
	if open == '[' && (aerr != nil || index < 0 || strconv.Itoa(index) != tokens[0]) {
		index = -1 // not an array index (RFC 6901: no sign, no leading zero)
	}
	for n := 0; dec.More(); n++ {
		here := open == '[' && n == index
		if open == '{' {
			key, err := dec.Token()
			if err != nil {
				return 0, 0, false, err
			}
			here = key == tokens[0]
		}
		if !here {
			if err := skip(dec); err != nil {
				return 0, 0, false, err
			}
			continue
		}
		s, e, found, err := find(dec, b, tokens[1:])
		if err != nil {
			return 0, 0, false, err
		}
		start, end, ok = s, e, found // a later repeat of the key replaces it
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return 0, 0, false, err
	}
	return start, end, ok, nil
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

// choicePathList is v's choice paths as (clause, pointer) pairs, in the order of v.Clauses, each
// clause's pointers in the order written.
func (v Vector) choicePathList() [][2]string {
	var out [][2]string
	for _, c := range v.Clauses {
		for _, p := range v.ChoicePaths[c] {
			out = append(out, [2]string{c, p})
		}
	}
	return out
}

// masked is text with the value at every pointer replaced by null, so two texts masked alike are
// equal exactly when they agree outside those values and both have each member; a pointer text
// does not have is left as it is (the other side's null then differs from its absence).
func masked(text []byte, pointers []string) []byte {
	type rng struct{ s, e int }
	var rs []rng
	for _, p := range pointers {
		toks, err := pointerTokens(p)
		if err != nil {
			continue
		}
		if s, e, ok := span(text, toks); ok {
			rs = append(rs, rng{s, e})
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].s < rs[j].s || rs[i].s == rs[j].s && rs[i].e > rs[j].e })
	var out []byte
	at := 0
	for _, r := range rs {
		if r.s < at { // inside a range already masked
			continue
		}
		out = append(append(out, text[at:r.s]...), "null"...)
		at = r.e
	}
	return append(out, text[at:]...)
}

// valueAt is the text of the value at pointer p in text, and whether text has it.
func valueAt(text []byte, p string) (string, bool) {
	toks, err := pointerTokens(p)
	if err != nil {
		return "", false
	}
	s, e, ok := span(text, toks)
	if !ok {
		return "", false
	}
	return string(text[s:e]), true
}

// validateChoicePaths checks v's choicePaths against its clauses and expected state: a state
// vector that cites a choice beside a required clause names paths for every choice it cites; each
// names a cited choice and members expect.state has; no other vector has them.
func (v Vector) validateChoicePaths(known map[string]bool, bad func(string, ...any)) {
	var choices, required []string
	for _, id := range v.Clauses {
		if c, ok := spec.Lookup(id); ok && c.Tier == spec.TierChoice {
			choices = append(choices, id)
		} else {
			required = append(required, id)
		}
	}
	switch {
	case v.Kind != KindFold || v.Expect.State == nil:
		if len(v.ChoicePaths) > 0 {
			bad("choicePaths: only a fold vector that expects a state has them")
		}
		return
	case len(required) == 0:
		if len(v.ChoicePaths) > 0 {
			bad("choicePaths: the vector cites only choices, so its whole answer binds as a recommendation already; drop choicePaths")
		}
		return
	}
	want, err := fold.CanonicalJSON(v.Expect.State)
	if err != nil {
		return // expect.state's own check reports it
	}
	ids := make([]string, 0, len(v.ChoicePaths))
	for id := range v.ChoicePaths {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		switch {
		case !known[id]:
			bad("choicePaths: unknown clause %q (see loom-conform spec)", id)
			continue
		case !slices.Contains(v.Clauses, id):
			bad("choicePaths: %s is not among the vector's clauses", id)
			continue
		case !slices.Contains(choices, id):
			bad("choicePaths: %s is not a choice: only a choice's paths are compared apart, as a recommendation", id)
			continue
		}
		seen := map[string]bool{}
		for _, p := range v.ChoicePaths[id] {
			if seen[p] {
				bad("choicePaths: %s names %q twice", id, p)
			}
			seen[p] = true
			if _, err := pointerTokens(p); err != nil {
				bad("choicePaths: %s: %v", id, err)
			} else if _, ok := valueAt(want, p); !ok {
				bad("choicePaths: %s: %q names nothing expect.state has (where a choice decides whether a member is there, name the object holding it)", id, p)
			}
		}
	}
	for _, id := range choices {
		if len(v.ChoicePaths[id]) == 0 {
			bad("choicePaths: the vector cites the choice %s beside a required clause, so it names the members of expect.state %s decides (or the vector is split, one citing only choices)", id, id)
		}
	}
}
