package fold

import (
	"fmt"
	"sort"
)

// deepFrom is the nesting depth from which appendCanonicalRaw transcodes a container with an
// index of where every array and object below it ends. Above it, each level finds its members'
// ends by scanning them, which costs the value's size once per enclosing level: fine for the
// shallow values states hold, quadratic for a deeply nested payload (a 48 KB input nested 8 000
// deep took seconds). With the index the rest of the value costs time linear in its size.
const deepFrom = 16

// containerIndex lists the arrays and objects of a validated JSON value in the order they open:
// where each starts and where it ends (the index past its closing bracket).
type containerIndex struct{ starts, ends []int }

func indexContainers(raw []byte) containerIndex {
	var ix containerIndex
	var open []int
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = skipStringTrusted(raw, i) - 1
		case '{', '[':
			open = append(open, len(ix.starts))
			ix.starts = append(ix.starts, i)
			ix.ends = append(ix.ends, len(raw))
		case '}', ']':
			if n := len(open); n > 0 {
				ix.ends[open[n-1]] = i + 1
				open = open[:n-1]
			}
		}
	}
	return ix
}

// valueEnd returns the index past the validated value starting at raw[i].
func (ix containerIndex) valueEnd(raw []byte, i int) int {
	switch raw[i] {
	case '{', '[':
		if k := sort.SearchInts(ix.starts, i); k < len(ix.starts) && ix.starts[k] == i {
			return ix.ends[k]
		}
		return skipTrusted(raw, i) // not reached for the value the index was built on
	case '"':
		return skipStringTrusted(raw, i)
	}
	return skipTrusted(raw, i)
}

// appendIndexed transcodes the validated value starting at raw[i] (raw is the value the index was
// built on) to canonical form, exactly as appendCanonicalRaw does, in time linear in its size.
func appendIndexed(dst, raw []byte, ix containerIndex, i, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return dst, fmt.Errorf("canonical: nesting deeper than %d", MaxDepth)
	}
	var err error
	switch raw[i] {
	case '[':
		dst = append(dst, '[')
		j := skipSpace(raw, i+1)
		for n := 0; raw[j] != ']'; n++ {
			if n > 0 {
				dst = append(dst, ',')
			}
			end := ix.valueEnd(raw, j)
			if dst, err = appendIndexed(dst, raw, ix, j, depth+1); err != nil {
				return dst, err
			}
			if j = skipSpace(raw, end); raw[j] == ',' {
				j = skipSpace(raw, j+1)
			}
		}
		return append(dst, ']'), nil
	case '{':
		var members []rawMember
		j := skipSpace(raw, i+1)
		for raw[j] != '}' {
			ke, special := skipStringTrustedEsc(raw, j)
			key := raw[j+1 : ke-1]
			if special && hasEscape(key) {
				key = appendUnescaped(nil, key)
			}
			j = skipSpace(raw, skipSpace(raw, ke)+1) // past the ':'
			end := ix.valueEnd(raw, j)
			members = append(members, rawMember{string(key), raw[j:end]})
			if j = skipSpace(raw, end); raw[j] == ',' {
				j = skipSpace(raw, j+1)
			}
		}
		// A member's value is a slice of raw: its offset is where its capacity starts.
		return appendMembers(dst, members, depth, func(dst, val []byte, depth int) ([]byte, error) {
			return appendIndexed(dst, raw, ix, cap(raw)-cap(val), depth)
		})
	}
	return appendCanonicalRaw(dst, raw[i:ix.valueEnd(raw, i)], depth)
}
