package jsondiff

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// Compact renders v (any Go value, shown as the JSON it carries: Value) as one line of JSON,
// object keys sorted, at most max characters (0 = no limit). A longer value is elided with "…":
// a string is cut between characters and closed, a container after its last whole member and
// closed, so what is shown stays readable JSON up to the mark.
func Compact(v any, max int) string {
	return compact(Value(v), max)
}

func compact(v any, max int) string {
	c := clipper{left: max, unlimited: max <= 0}
	c.value(v)
	return c.b.String()
}

// clipper writes a JSON value within a budget of characters.
type clipper struct {
	b         strings.Builder
	left      int
	unlimited bool
	cut       bool
}

// fits writes s when it fits in what is left of the budget.
func (c *clipper) fits(s string) bool {
	n := utf8.RuneCountInString(s)
	if !c.unlimited && n > c.left {
		return false
	}
	c.b.WriteString(s)
	c.left -= n
	return true
}

// must writes s whatever the budget (closing brackets and the elision mark).
func (c *clipper) must(s string) {
	c.b.WriteString(s)
	c.left -= utf8.RuneCountInString(s)
}

func (c *clipper) elide() {
	c.cut = true
	c.must("…")
}

func (c *clipper) value(v any) {
	switch x := v.(type) {
	case map[string]any:
		c.must("{")
		for i, k := range sortedKeys(x) {
			if c.cut {
				break
			}
			if i > 0 {
				c.must(",")
			}
			if !c.unlimited && c.left < utf8.RuneCountInString(quote(k))+3 {
				c.elide() // no room for the member: cut before its name
				break
			}
			c.str(k)
			if c.cut {
				break
			}
			c.must(":")
			c.value(x[k])
		}
		c.must("}")
	case []any:
		c.must("[")
		for i, e := range x {
			if c.cut {
				break
			}
			if i > 0 {
				c.must(",")
			}
			if !c.unlimited && c.left <= 1 {
				c.elide()
				break
			}
			c.value(e)
		}
		c.must("]")
	case string:
		c.str(x)
	case notJSON:
		c.must("(not JSON) ")
		c.str(x.text)
	default:
		if !c.fits(scalar(v)) {
			c.elide()
		}
	}
}

// str writes s as a JSON string, cut between characters (never inside an escape) when it does
// not fit.
func (c *clipper) str(s string) {
	q := quote(s)
	if c.fits(q) {
		return
	}
	c.must(`"`)
	for _, r := range s {
		e := quoteRune(r)
		if utf8.RuneCountInString(e) > c.left-2 {
			break
		}
		c.must(e)
	}
	c.must(`…"`)
	c.cut = true
}

// scalar is the JSON text of a number, boolean or null.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.Number:
		return string(x)
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// quote is s as a JSON string literal, without the HTML escapes encoding/json adds by default.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		b.WriteString(quoteRune(r))
	}
	b.WriteByte('"')
	return b.String()
}

func quoteRune(r rune) string {
	switch r {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case 0x2028, 0x2029:
		return `\u` + hex4(r)
	}
	if r < 0x20 || r == 0x7f {
		return `\u` + hex4(r)
	}
	return string(r)
}

func hex4(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf]})
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
