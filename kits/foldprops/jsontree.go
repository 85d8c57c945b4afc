package foldprops

import (
	"encoding/json"
	"errors"
	"strings"
)

// jnode is a JSON value kept as written: object keys and leaves are raw JSON texts, so a spelling
// (1e400, -0, "\ud800", an escaped name, a repeated key) survives a rewrite. The hostile
// generator edits it (hostile.go) and JSONBReorder reorders it.
type jnode struct {
	kind byte     // '{', '[' or 0 for a leaf
	keys []string // raw JSON strings, one per member of an object
	kids []*jnode
	raw  string // a leaf
}

var errNotJSON = errors.New("not one JSON value")

// parseNode reads one JSON text into a jnode.
func parseNode(b []byte) (*jnode, error) {
	if !json.Valid(b) {
		return nil, errNotJSON
	}
	n, _ := parseAt(b, skipWS(b, 0))
	return n, nil
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index past the JSON string starting at b[i] == '"'.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// parseAt reads the value at b[i] of a valid JSON text and returns the index past it.
func parseAt(b []byte, i int) (*jnode, int) {
	switch c := b[i]; c {
	case '{', '[':
		n := &jnode{kind: c}
		i = skipWS(b, i+1)
		for b[i] != '}' && b[i] != ']' {
			if c == '{' {
				e := stringEnd(b, i)
				n.keys = append(n.keys, string(b[i:e]))
				i = skipWS(b, skipWS(b, e)+1) // past ':'
			}
			var kid *jnode
			kid, i = parseAt(b, i)
			n.kids = append(n.kids, kid)
			if i = skipWS(b, i); b[i] == ',' {
				i = skipWS(b, i+1)
			}
		}
		return n, i + 1
	case '"':
		e := stringEnd(b, i)
		return &jnode{raw: string(b[i:e])}, e
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\n\r", rune(b[j])) {
		j++
	}
	return &jnode{raw: string(b[i:j])}, j
}

// write appends the value as JSON, members separated by sep and names by colon.
func (n *jnode) write(w *strings.Builder, sep, colon string) {
	switch n.kind {
	case '{', '[':
		w.WriteByte(n.kind)
		for i, kid := range n.kids {
			if i > 0 {
				w.WriteString(sep)
			}
			if n.kind == '{' {
				w.WriteString(n.keys[i])
				w.WriteString(colon)
			}
			kid.write(w, sep, colon)
		}
		if n.kind == '{' {
			w.WriteByte('}')
		} else {
			w.WriteByte(']')
		}
	default:
		w.WriteString(n.raw)
	}
}

// nodes lists n and every value under it, depth first.
func (n *jnode) nodes(out []*jnode) []*jnode {
	out = append(out, n)
	for _, k := range n.kids {
		out = k.nodes(out)
	}
	return out
}
