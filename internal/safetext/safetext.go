// Package safetext makes text a target supplied (an implementation's name and version, a
// store's error message, a container's log) safe to show: in a terminal, where an escape
// sequence could clear the screen, retitle the window or hide a line, and in every report format,
// where the same characters are invalid XML or invisible. It is the one escaping helper the text,
// HTML, JUnit and badge renderers call.
//
// Visible keeps newlines and tabs (messages span lines); Line escapes them too (a name must not
// start a new line of a certificate). Everything else that is not printable text — C0 and C1
// controls, DEL, bidirectional overrides and isolates, line and paragraph separators,
// noncharacters, bytes that are not UTF-8 — becomes a visible Go-style escape (\x1b, \u202e), so
// the reader sees that it was there.
//
//	fmt.Fprintf(w, "implementation: %s\n", safetext.Line(hs.Implementation.Name))
package safetext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Visible returns s with every character that would act on a terminal or a document, other than
// newline and tab, shown as an escape.
func Visible(s string) string { return escape(s, false) }

// Line is Visible that also escapes newlines, carriage returns and tabs: for text that must stay
// on one line.
func Line(s string) string { return escape(s, true) }

func escape(s string, line bool) string {
	if clean(s, line) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !shown(r, line):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func clean(s string, line bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			for _, r := range s[i:] {
				if !shown(r, line) || r == utf8.RuneError {
					return false
				}
			}
			return utf8.ValidString(s[i:])
		}
		if !shown(rune(c), line) {
			return false
		}
	}
	return true
}

// shown reports whether r may be written as itself.
func shown(r rune, line bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !line
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return false // C0, DEL, C1: ESC and CSI start terminal sequences; CR overwrites a line
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return false // bidirectional overrides, embeddings, isolates and marks reorder what is read
	case r == 0x2028 || r == 0x2029:
		return false // line and paragraph separators
	case r == 0xfeff || r == 0xfffe || r == 0xffff || (r >= 0xfdd0 && r <= 0xfdef):
		return false // a byte-order mark mid-text, noncharacters (not allowed in XML)
	}
	return true
}

// Writer escapes everything written through it with Visible (a write holds whole lines, so an
// escape sequence is never split across two).
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (w writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, Visible(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
