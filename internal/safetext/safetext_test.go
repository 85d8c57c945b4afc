package safetext

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscapes(t *testing.T) {
	for _, c := range []struct{ in, visible, line string }{
		{"plain name 1.2.3", "plain name 1.2.3", "plain name 1.2.3"},
		{"héllo 日本 🧵", "héllo 日本 🧵", "héllo 日本 🧵"},
		{"a\nb\tc", "a\nb\tc", `a\x0ab\x09c`},
		{"evil\x1b[2J\x1b]0;pwned\x07", `evil\x1b[2J\x1b]0;pwned\x07`, `evil\x1b[2J\x1b]0;pwned\x07`},
		{"over\rwrite", `over\x0dwrite`, `over\x0dwrite`},
		{"csi\u009b31m", `csi\x9b31m`, `csi\x9b31m`},
		{"name\u202egnp.exe", `name\u202egnp.exe`, `name\u202egnp.exe`},
		{"bad\xffutf8", `bad\xffutf8`, `bad\xffutf8`},
		{"del\x7f", `del\x7f`, `del\x7f`},
		{"sep\u2028x", `sep\u2028x`, `sep\u2028x`},
	} {
		if got := Visible(c.in); got != c.visible {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.visible)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
	}
}

// FuzzVisible: the result is valid UTF-8 with no control character but newline and tab, fits in
// XML, and is the input itself when the input was clean.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"x", "\x1b[2J", "a\u202eb", "\xff", "ok\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := Visible(s)
		if !utf8.ValidString(v) {
			t.Fatalf("Visible(%q) = %q, not UTF-8", s, v)
		}
		for _, r := range v {
			if r != '\n' && r != '\t' && !shown(r, false) {
				t.Fatalf("Visible(%q) = %q holds %U", s, v, r)
			}
		}
		var b strings.Builder
		if err := xml.EscapeText(&b, []byte(v)); err != nil || strings.ContainsRune(b.String(), '\uFFFD') && !strings.ContainsRune(v, '\uFFFD') {
			t.Fatalf("Visible(%q) = %q is not XML text", s, v)
		}
		if strings.Contains(Line(s), "\n") {
			t.Fatalf("Line(%q) holds a newline", s)
		}
	})
}
