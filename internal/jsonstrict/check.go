package jsonstrict

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxDepth is the deepest nesting of arrays and objects Check accepts when Options.MaxDepth
// is zero: the bound the fold and encoding/json apply (fold.MaxDepth), so every server takes what
// the fold takes.
const DefaultMaxDepth = 10000

// Kind says what made a text unacceptable.
type Kind string

// The kinds of Error.
const (
	Syntax    Kind = "syntax"        // not JSON (RFC 8259)
	BadUTF8   Kind = "utf8"          // a string (or key) holds bytes that are not UTF-8
	Duplicate Kind = "duplicate-key" // an object names one key twice (after unescaping)
	TooDeep   Kind = "depth"         // nesting deeper than the limit
	Inexact   Kind = "number"        // a number an IEEE double does not hold exactly (Options.ExactDoublesIn)
	Surrogate Kind = "surrogate"     // a \u escape of a surrogate left unpaired (Options.NamesWhole)
)

// Error is a refused text: what (Kind, Reason), where (Path, Offset).
type Error struct {
	Kind Kind
	// Path names the value at fault: members by name (`.name`, or `["a b"]` when the name is not
	// a plain identifier), elements by index (`[3]`); "" is the whole text.
	Path   string
	Offset int // byte offset of the fault in the text
	Reason string
	// Limit is the depth limit a TooDeep error passed.
	Limit int
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// Options tune Check. The zero value checks grammar, UTF-8, duplicate keys and DefaultMaxDepth.
type Options struct {
	// MaxDepth bounds nesting (0 = DefaultMaxDepth).
	MaxDepth int
	// ExactDoublesIn, when set, names a member of the top-level object whose numbers (at any depth
	// below it) must be ones an IEEE double holds exactly: a number that overflows, underflows to
	// zero or reads back as another value (an integer past 2^53 that is not a double) is refused.
	ExactDoublesIn string
	// ExactDoubles holds every number of the text to that rule.
	ExactDoubles bool
	// NamesWhole refuses a string or key holding a \u escape of a surrogate that is not paired
	// (\uD800 alone, \uDC00 first), except below a member named in Opaque: a name read into a
	// UTF-8 string (an id, a key) cannot hold one, and decoding replaces it with U+FFFD, so two
	// names would become one (I-STORE-81). Values kept as JSON text (payloads, states) may.
	NamesWhole bool
	// Opaque names the members whose values NamesWhole leaves alone, at any depth.
	Opaque []string
}

// Check reports whether b is one JSON value acceptable under o; a refusal is an *Error.
func Check(b []byte, o Options) error {
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	c := checker{b: b, opt: o}
	return c.run()
}

// frame is one open container.
type frame struct {
	obj   bool
	n     int    // index of the element being read (arrays)
	key   []byte // unescaped key of the member being read (objects)
	keys  [][]byte
	set   map[string]struct{}
	exact bool // numbers below must be exact doubles
}

// smallObject is how many keys an object holds before duplicate detection switches to a map.
const smallObject = 16

type checker struct {
	b     []byte
	i     int
	opt   Options
	stack []frame
	// exactNext marks the value about to be read as one whose numbers must be exact doubles.
	exactNext bool
}

func (c *checker) fail(k Kind, at int, format string, args ...any) error {
	return &Error{Kind: k, Path: c.path(), Offset: at, Reason: fmt.Sprintf(format, args...)}
}

// run reads one value and the space after it, iteratively: a value opens a container (pushed),
// or is a scalar; after each value the innermost container takes a separator or closes.
func (c *checker) run() error {
	b := c.b
	c.i = skipSpace(b, 0)
	for {
		// A value starts at c.i.
		if c.i >= len(b) {
			return c.fail(Syntax, c.i, "unexpected end of input, want a value")
		}
		exact := c.opt.ExactDoubles || c.exactNext || (len(c.stack) > 0 && c.stack[len(c.stack)-1].exact)
		c.exactNext = false
		switch ch := b[c.i]; {
		case ch == '{' || ch == '[':
			if len(c.stack) >= c.opt.MaxDepth {
				return &Error{Kind: TooDeep, Path: c.path(), Offset: c.i, Limit: c.opt.MaxDepth,
					Reason: fmt.Sprintf("nesting deeper than %d levels, the limit", c.opt.MaxDepth)}
			}
			c.push(ch == '{', exact)
			c.i = skipSpace(b, c.i+1)
			closer := byte(']')
			if ch == '{' {
				closer = '}'
			}
			if c.i < len(b) && b[c.i] == closer {
				c.i++
				c.stack = c.stack[:len(c.stack)-1]
				break // an empty container is a complete value
			}
			if ch == '{' {
				if err := c.member(); err != nil {
					return err
				}
			}
			continue // the first element or member value
		case ch == '"':
			end, err := c.str(c.i, false)
			if err != nil {
				return err
			}
			c.i = end
		case ch == 't':
			if err := c.literal("true"); err != nil {
				return err
			}
		case ch == 'f':
			if err := c.literal("false"); err != nil {
				return err
			}
		case ch == 'n':
			if err := c.literal("null"); err != nil {
				return err
			}
		case ch == '-' || (ch >= '0' && ch <= '9'):
			start := c.i
			end, ok := scanNumber(b, c.i)
			if !ok {
				return c.fail(Syntax, start, "invalid number")
			}
			c.i = end
			if exact {
				if why := inexact(b[start:end]); why != "" {
					return c.fail(Inexact, start, "%s", why)
				}
			}
		default:
			return c.fail(Syntax, c.i, "unexpected character %s, want a value", quoteByte(ch))
		}
		// A value ended at c.i: the innermost container takes ',' or closes.
		for {
			if len(c.stack) == 0 {
				if j := skipSpace(b, c.i); j != len(b) {
					return c.fail(Syntax, j, "trailing data after the value")
				}
				return nil
			}
			top := &c.stack[len(c.stack)-1]
			c.i = skipSpace(b, c.i)
			if c.i >= len(b) {
				return c.fail(Syntax, c.i, "unexpected end of input, want ',' or a closing bracket")
			}
			if b[c.i] == ',' {
				c.i = skipSpace(b, c.i+1)
				if top.obj {
					if err := c.member(); err != nil {
						return err
					}
				} else {
					top.n++
				}
				break // the next value
			}
			if (top.obj && b[c.i] == '}') || (!top.obj && b[c.i] == ']') {
				c.i++
				c.stack = c.stack[:len(c.stack)-1]
				continue // the container was a value of its parent
			}
			if top.obj {
				return c.fail(Syntax, c.i, "want ',' or '}' after a member")
			}
			return c.fail(Syntax, c.i, "want ',' or ']' after an element")
		}
	}
}

// push opens a container, reusing the frame (and its key buffers) left at this depth before.
func (c *checker) push(obj, exact bool) {
	if len(c.stack) < cap(c.stack) {
		c.stack = c.stack[:len(c.stack)+1]
	} else {
		c.stack = append(c.stack, frame{})
	}
	f := &c.stack[len(c.stack)-1]
	f.obj, f.n, f.key, f.exact = obj, 0, nil, exact
	f.keys = f.keys[:0]
	if f.set != nil {
		clear(f.set)
	}
}

// member reads a key and its ':' in the innermost object, refusing a key seen before in it.
func (c *checker) member() error {
	b := c.b
	top := &c.stack[len(c.stack)-1]
	top.key = nil // the path names the object itself until the key is read
	if c.i >= len(b) || b[c.i] != '"' {
		return c.fail(Syntax, c.i, "want a quoted key")
	}
	start := c.i
	end, err := c.str(start, true)
	if err != nil {
		return err
	}
	key := b[start+1 : end-1]
	if hasBackslash(key) {
		key = unescape(key)
	}
	if top.seen(key) {
		top.key = key // the path names the repeated member
		return c.fail(Duplicate, start, "key %s appears twice in one object", strconv.Quote(string(key)))
	}
	top.key = key
	c.i = skipSpace(b, end)
	if c.i >= len(b) || b[c.i] != ':' {
		return c.fail(Syntax, c.i, "want ':' after a key")
	}
	c.i = skipSpace(b, c.i+1)
	c.exactNext = len(c.stack) == 1 && c.opt.ExactDoublesIn != "" && string(key) == c.opt.ExactDoublesIn
	return nil
}

// seen records key and reports whether the object held it already.
func (f *frame) seen(key []byte) bool {
	if f.set != nil {
		if _, dup := f.set[string(key)]; dup {
			return true
		}
		f.set[string(key)] = struct{}{}
		return false
	}
	for _, k := range f.keys {
		if string(k) == string(key) {
			return true
		}
	}
	f.keys = append(f.keys, key)
	if len(f.keys) > smallObject {
		f.set = make(map[string]struct{}, 2*smallObject)
		for _, k := range f.keys {
			f.set[string(k)] = struct{}{}
		}
	}
	return false
}

func (c *checker) literal(lit string) error {
	if len(c.b)-c.i < len(lit) || string(c.b[c.i:c.i+len(lit)]) != lit {
		return c.fail(Syntax, c.i, "invalid literal, want %s", lit)
	}
	c.i += len(lit)
	return nil
}

// str validates the string starting at b[i] (a quote) and returns the index past its closing
// quote. isKey only changes how a fault is worded.
func (c *checker) str(i int, isKey bool) (int, error) {
	b := c.b
	what := "a string"
	if isKey {
		what = "a key"
	}
	for j := i + 1; j < len(b); {
		ch := b[j]
		switch {
		case ch == '"':
			return j + 1, nil
		case ch == '\\':
			if j+1 >= len(b) {
				return 0, c.fail(Syntax, j, "unterminated escape in %s", what)
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || !isHex4(b[j+2:j+6]) {
					return 0, c.fail(Syntax, j, "invalid \\u escape in %s", what)
				}
				if r := hexVal(b[j+2:]); c.opt.NamesWhole && r >= 0xD800 && r < 0xE000 {
					paired := r < 0xDC00 && j+12 <= len(b) && b[j+6] == '\\' && b[j+7] == 'u' && isHex4(b[j+8:j+12])
					if paired {
						lo := hexVal(b[j+8:])
						paired = lo >= 0xDC00 && lo < 0xE000
					}
					if paired {
						j += 12
						continue
					}
					if !c.opaque() {
						return 0, c.fail(Surrogate, j, "%s holds the lone surrogate \\u%s, which no name may hold", what, strings.ToUpper(string(b[j+2:j+6])))
					}
				}
				j += 6
			default:
				return 0, c.fail(Syntax, j, "invalid escape \\%s in %s", string(rune(b[j+1])), what)
			}
		case ch < 0x20:
			return 0, c.fail(Syntax, j, "control character %s unescaped in %s", quoteByte(ch), what)
		case ch < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size <= 1 {
				return 0, c.fail(BadUTF8, j, "%s holds byte 0x%02x, which is not UTF-8", what, b[j])
			}
			j += size
		}
	}
	return 0, c.fail(Syntax, i, "unterminated %s", what)
}

// opaque reports whether the value being read lies below a member Options.Opaque names.
func (c *checker) opaque() bool {
	for i := range c.stack {
		if f := &c.stack[i]; f.obj && f.key != nil && slices.Contains(c.opt.Opaque, string(f.key)) {
			return true
		}
	}
	return false
}

// path renders the position of the value being read.
func (c *checker) path() string {
	var s strings.Builder
	for i := range c.stack {
		f := &c.stack[i]
		if f.obj {
			if f.key == nil {
				break
			}
			k := string(f.key)
			if plainName(k) {
				if s.Len() > 0 {
					s.WriteByte('.')
				}
				s.WriteString(k)
			} else {
				s.WriteString("[" + strconv.Quote(k) + "]")
			}
			continue
		}
		s.WriteString("[" + strconv.Itoa(f.n) + "]")
	}
	return s.String()
}

// plainName reports whether a member name reads as itself after a dot: an identifier.
func plainName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		ch := k[i]
		if !(ch == '_' || ch == '$' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

func quoteByte(ch byte) string {
	if ch >= 0x20 && ch < 0x7f {
		return strconv.QuoteRune(rune(ch))
	}
	return fmt.Sprintf("0x%02x", ch)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func hasBackslash(b []byte) bool {
	for _, ch := range b {
		if ch == '\\' {
			return true
		}
	}
	return false
}

func isHex4(b []byte) bool {
	for _, ch := range b[:4] {
		if !(ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F') {
			return false
		}
	}
	return true
}

func hexVal(b []byte) rune {
	var r rune
	for _, ch := range b[:4] {
		r <<= 4
		switch {
		case ch >= '0' && ch <= '9':
			r |= rune(ch - '0')
		case ch >= 'a' && ch <= 'f':
			r |= rune(ch - 'a' + 10)
		default:
			r |= rune(ch - 'A' + 10)
		}
	}
	return r
}

// unescape decodes a validated string body into bytes that are equal exactly when the strings
// are: a surrogate pair becomes its character's UTF-8, a lone surrogate the 3-byte generalised
// form of its code unit (as JavaScript keeps it).
func unescape(s []byte) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			out = append(out, s[i])
			i++
			continue
		}
		switch e := s[i+1]; e {
		case 'u':
			r := hexVal(s[i+2:])
			i += 6
			if r >= 0xD800 && r < 0xDC00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if lo := hexVal(s[i+2:]); lo >= 0xDC00 && lo < 0xE000 {
					out = utf8.AppendRune(out, 0x10000+(r-0xD800)<<10+(lo-0xDC00))
					i += 6
					continue
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				out = append(out, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
				continue
			}
			out = utf8.AppendRune(out, r)
		default:
			out = append(out, simpleEscape(e))
			i += 2
		}
	}
	return out
}

// simpleEscape is the byte a one-letter escape stands for.
func simpleEscape(e byte) byte {
	switch e {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return e // '"', '\\' and '/' stand for themselves
}
