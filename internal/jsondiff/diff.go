package jsondiff

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Widths of what a diff shows on one line, in characters.
const (
	// sameWidth bounds a member or element equal on both sides (context, not the difference).
	sameWidth = 100
	// diffWidth bounds each side of a difference.
	diffWidth = 400
	// maxLines bounds the lines of one diff; the rest are counted.
	maxLines = 200
	// shownPointers is how many JSON Pointers of differences the first line names.
	shownPointers = 3
	// context is how many equal elements or members are shown on each side of a difference (an
	// object of at most smallObject members is shown whole).
	context     = 1
	smallObject = 12
	// lcsCells bounds the table aligning two arrays of different lengths; larger ones are aligned
	// by index.
	lcsCells = 1 << 20
)

// Diff shows how got differs from want as JSON values (Value): a first line naming the JSON
// Pointers of the first differences, then the values line by line, "-" for want and "+" for got.
// It is "" when both carry the same JSON.
func Diff(want, got any) string {
	return diff(want, got, true)
}

// Lines is Diff without its first line, for a caller that names the first difference itself.
func Lines(want, got any) string {
	return diff(want, got, false)
}

func diff(want, got any, pointers bool) string {
	w, g := Value(want), Value(got)
	if equal(w, g) {
		return ""
	}
	d := &differ{}
	d.value(w, g, "", "", 0, "")
	var b strings.Builder
	if pointers {
		b.WriteString("differs at ")
		for i, p := range d.ptrs {
			if i == shownPointers {
				fmt.Fprintf(&b, " (and %d more)", len(d.ptrs)-shownPointers)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(Pointer(p))
		}
		b.WriteByte('\n')
	}
	for i, l := range d.lines {
		if i == maxLines {
			fmt.Fprintf(&b, "  … %d more lines\n", len(d.lines)-maxLines)
			break
		}
		b.WriteByte(l.op)
		b.WriteByte(' ')
		b.WriteString(strings.Repeat("  ", l.depth))
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// First is the JSON Pointer of the first difference between want and got ("" for the whole
// value), and false when they carry the same JSON.
func First(want, got any) (string, bool) {
	w, g := Value(want), Value(got)
	if equal(w, g) {
		return "", false
	}
	d := &differ{}
	d.value(w, g, "", "", 0, "")
	return d.ptrs[0], true
}

// Pointer shows a JSON Pointer, naming the root, whose pointer is empty, in words.
func Pointer(p string) string {
	if p == "" {
		return `"" (the whole value)`
	}
	return p
}

// Token escapes one member name for a JSON Pointer (RFC 6901: ~ as ~0, / as ~1).
func Token(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

type line struct {
	op    byte // ' ', '-' or '+'
	depth int
	text  string
}

type differ struct {
	lines []line
	ptrs  []string
}

func (d *differ) emit(op byte, depth int, text string) {
	d.lines = append(d.lines, line{op, depth, text})
}

// value diffs w and g (either may be absent{}) at pointer path; prefix is the member's key
// (`"k": `) or "", comma what ends the entry.
func (d *differ) value(w, g any, path, prefix string, depth int, comma string) {
	_, noW := w.(absent)
	_, noG := g.(absent)
	// A member one side lacks is said on that side too ("(no "metadata")"): the absence is the
	// difference, and the same absence reads the same in every failure it causes.
	switch {
	case noW:
		d.ptrs = append(d.ptrs, path)
		if member := strings.TrimSuffix(prefix, ": "); member != "" {
			d.emit('-', depth, "(no "+member+")")
		}
		d.emit('+', depth, prefix+compact(g, diffWidth)+comma)
		return
	case noG:
		d.ptrs = append(d.ptrs, path)
		d.emit('-', depth, prefix+compact(w, diffWidth)+comma)
		if member := strings.TrimSuffix(prefix, ": "); member != "" {
			d.emit('+', depth, "(no "+member+")")
		}
		return
	case equal(w, g):
		d.emit(' ', depth, prefix+compact(w, sameWidth)+comma)
		return
	}
	wm, okW := w.(map[string]any)
	gm, okG := g.(map[string]any)
	if okW && okG {
		d.emit(' ', depth, prefix+"{")
		d.object(wm, gm, path, depth+1)
		d.emit(' ', depth, "}"+comma)
		return
	}
	wa, okW := w.([]any)
	ga, okG := g.([]any)
	if okW && okG {
		d.emit(' ', depth, prefix+"[")
		d.array(wa, ga, path, depth+1)
		d.emit(' ', depth, "]"+comma)
		return
	}
	d.ptrs = append(d.ptrs, path)
	ws, okW := w.(string)
	gs, okG := g.(string)
	if okW && okG && (utf8.RuneCountInString(ws) > diffWidth || utf8.RuneCountInString(gs) > diffWidth) {
		at := firstRune(ws, gs)
		d.emit('-', depth, prefix+window(ws, at)+comma)
		d.emit('+', depth, prefix+window(gs, at)+comma)
		return
	}
	d.emit('-', depth, prefix+compact(w, diffWidth)+comma)
	d.emit('+', depth, prefix+compact(g, diffWidth)+comma)
}

// entry is one member or element of a container diff: its pointer, prefix and the two sides.
type entry struct {
	path, prefix string
	w, g         any
	same         bool
}

func (d *differ) object(w, g map[string]any, path string, depth int) {
	keys := make(map[string]any, len(w)+len(g))
	for k := range w {
		keys[k] = nil
	}
	for k := range g {
		keys[k] = nil
	}
	es := make([]entry, 0, len(keys))
	for _, k := range sortedKeys(keys) {
		wv, ok := w[k]
		if !ok {
			wv = absent{}
		}
		gv, ok := g[k]
		if !ok {
			gv = absent{}
		}
		es = append(es, entry{path: path + "/" + Token(k), prefix: quote(k) + ": ", w: wv, g: gv, same: equal(wv, gv)})
	}
	d.entries(es, depth, len(es) <= smallObject, "members")
}

func (d *differ) array(w, g []any, path string, depth int) {
	var es []entry
	for _, p := range align(w, g) {
		e := entry{w: absent{}, g: absent{}}
		switch {
		case p.i >= 0:
			e.path, e.w = path+"/"+strconv.Itoa(p.i), w[p.i]
			if p.j >= 0 {
				e.g = g[p.j]
			}
		default:
			e.path, e.g = path+"/"+strconv.Itoa(p.j), g[p.j]
		}
		e.same = equal(e.w, e.g)
		es = append(es, e)
	}
	d.entries(es, depth, false, "elements")
}

// entries shows a container's entries: every one that differs, the equal ones within context of
// a difference (all of them when whole), and a count of each longer run of equal ones.
func (d *differ) entries(es []entry, depth int, whole bool, noun string) {
	show := make([]bool, len(es))
	for i, e := range es {
		if e.same && !whole {
			continue
		}
		for j := max(0, i-context); j <= min(len(es)-1, i+context); j++ {
			show[j] = true
		}
		if whole {
			show[i] = true
		}
	}
	for i := 0; i < len(es); {
		if show[i] {
			comma := ","
			if i == len(es)-1 {
				comma = ""
			}
			d.value(es[i].w, es[i].g, es[i].path, es[i].prefix, depth, comma)
			i++
			continue
		}
		j := i
		for j < len(es) && !show[j] {
			j++
		}
		if j-i == 1 {
			show[i] = true
			continue
		}
		d.emit(' ', depth, fmt.Sprintf("… %d equal %s", j-i, noun))
		i = j
	}
}

// pair is one step of an alignment of two arrays: elements i of want and j of got (-1: none).
type pair struct{ i, j int }

// align pairs the elements of w and g: the common prefix and suffix by index, the middle by a
// longest common subsequence of equal elements, with each run of removed elements paired with the
// run of added ones beside it (so a changed element is diffed in place, not removed and added).
func align(w, g []any) []pair {
	pre := 0
	for pre < len(w) && pre < len(g) && equal(w[pre], g[pre]) {
		pre++
	}
	suf := 0
	for suf < len(w)-pre && suf < len(g)-pre && equal(w[len(w)-1-suf], g[len(g)-1-suf]) {
		suf++
	}
	var out []pair
	for k := 0; k < pre; k++ {
		out = append(out, pair{k, k})
	}
	mw, mg := w[pre:len(w)-suf], g[pre:len(g)-suf]
	var mid []pair
	if len(mw) == len(mg) || len(mw)*len(mg) > lcsCells {
		for k := 0; k < max(len(mw), len(mg)); k++ {
			p := pair{-1, -1}
			if k < len(mw) {
				p.i = k
			}
			if k < len(mg) {
				p.j = k
			}
			mid = append(mid, p)
		}
	} else {
		mid = lcs(mw, mg)
	}
	for _, p := range mid {
		if p.i >= 0 {
			p.i += pre
		}
		if p.j >= 0 {
			p.j += pre
		}
		out = append(out, p)
	}
	for k := suf; k > 0; k-- {
		out = append(out, pair{len(w) - k, len(g) - k})
	}
	return out
}

// lcs aligns w and g along a longest common subsequence of equal elements; between two matches,
// removed and added elements are paired in order and the rest stand alone.
func lcs(w, g []any) []pair {
	n, m := len(w), len(g)
	keyW, keyG := make([]string, n), make([]string, m)
	for i := range w {
		keyW[i] = compact(w[i], 0)
	}
	for j := range g {
		keyG[j] = compact(g[j], 0)
	}
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if keyW[i] == keyG[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out []pair
	var dels, adds []int
	flush := func() {
		for k := 0; k < max(len(dels), len(adds)); k++ {
			p := pair{-1, -1}
			if k < len(dels) {
				p.i = dels[k]
			}
			if k < len(adds) {
				p.j = adds[k]
			}
			out = append(out, p)
		}
		dels, adds = dels[:0], adds[:0]
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && keyW[i] == keyG[j]:
			flush()
			out = append(out, pair{i, j})
			i++
			j++
		case j >= m || i < n && t[i+1][j] >= t[i][j+1]:
			dels = append(dels, i)
			i++
		default:
			adds = append(adds, j)
			j++
		}
	}
	flush()
	return out
}

// firstRune is the index (in characters) of the first character where a and b differ.
func firstRune(a, b string) int {
	n := 0
	for a != "" && b != "" {
		ra, sa := utf8.DecodeRuneInString(a)
		rb, sb := utf8.DecodeRuneInString(b)
		if ra != rb {
			break
		}
		a, b = a[sa:], b[sb:]
		n++
	}
	return n
}

// window shows a long string around character at: a little before it, as much after as fits,
// "…" where it is cut, always between characters.
func window(s string, at int) string {
	rs := []rune(s)
	from := max(0, at-40)
	to := min(len(rs), from+diffWidth-80)
	var b strings.Builder
	b.WriteByte('"')
	if from > 0 {
		b.WriteString("…")
	}
	for _, r := range rs[from:to] {
		b.WriteString(quoteRune(r))
	}
	if to < len(rs) {
		b.WriteString("…")
	}
	b.WriteByte('"')
	fmt.Fprintf(&b, " (%d characters, the first difference at %d)", len(rs), at)
	return b.String()
}
