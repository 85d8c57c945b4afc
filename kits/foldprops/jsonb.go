package foldprops

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// JSONBReorder rewrites a JSON text the way a normalising store returns it: PostgreSQL jsonb
// orders object keys by length, then bytes, keeps the last of repeated keys, and prints its own
// whitespace. The value is unchanged and so is the spelling of every key and leaf; only the
// order of members and the white space move, so a fold must not depend on them.
func JSONBReorder(b []byte) ([]byte, error) {
	n, err := parseNode(b)
	if err != nil {
		return nil, fmt.Errorf("jsonb reorder: %w", err)
	}
	reorderJSONB(n)
	var w strings.Builder
	w.Grow(len(b) + len(b)/4)
	n.write(&w, ", ", ": ")
	return []byte(w.String()), nil
}

// reorderJSONB sorts every object's members as jsonb does, keeping the last of a repeated key.
func reorderJSONB(n *jnode) {
	for _, k := range n.kids {
		reorderJSONB(k)
	}
	if n.kind != '{' || len(n.keys) == 0 {
		return
	}
	type member struct {
		name string // the key's value, by which jsonb orders
		key  string
		val  *jnode
	}
	ms := make([]member, 0, len(n.keys))
	for i, k := range n.keys {
		ms = append(ms, member{keyName(k), k, n.kids[i]})
	}
	slices.SortStableFunc(ms, func(a, b member) int {
		if len(a.name) != len(b.name) {
			return len(a.name) - len(b.name)
		}
		return strings.Compare(a.name, b.name)
	})
	n.keys, n.kids = n.keys[:0], n.kids[:0]
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].name == m.name {
			continue // the later one wins
		}
		n.keys = append(n.keys, m.key)
		n.kids = append(n.kids, m.val)
	}
}

// keyName decodes the raw JSON string k (valid), keeping a lone surrogate as the three bytes of
// its code unit (WTF-8) so that two different keys never decode alike.
func keyName(k string) string {
	body := k[1 : len(k)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			b.WriteByte(body[i])
			continue
		}
		i++
		switch c := body[i]; c {
		case 'u':
			r, _ := strconv.ParseUint(body[i+1:i+5], 16, 32)
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
				if lo, _ := strconv.ParseUint(body[i+3:i+7], 16, 32); lo >= 0xDC00 && lo < 0xE000 {
					b.WriteRune(utf16.DecodeRune(rune(r), rune(lo)))
					i += 6
					continue
				}
			}
			if utf16.IsSurrogate(rune(r)) {
				b.Write([]byte{0xE0 | byte(r>>12), 0x80 | byte(r>>6)&0x3F, 0x80 | byte(r)&0x3F})
				continue
			}
			b.WriteRune(rune(r))
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default: // '"', '\\', '/'
			b.WriteByte(c)
		}
	}
	return b.String()
}
