package doclinks

import (
	"strings"
	"unicode"
)

// Slug is the anchor GitHub gives a Markdown heading: lower case; letters, digits, '-' and '_'
// kept, spaces turned into '-', everything else (punctuation, symbols, the em dash) dropped.
// Inline code and emphasis markers are dropped with the punctuation.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
