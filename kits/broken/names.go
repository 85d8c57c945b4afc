package broken

import (
	"sort"
	"strings"
	"unicode/utf16"
)

func collate(a, b string) bool {
	la, lb := strings.ToLower(a), strings.ToLower(b)
	if la != lb {
		return la < lb
	}
	return a < b
}

func nfc(s string) string { return strings.ReplaceAll(s, "e\u0301", "\u00e9") }

func lowerCase(id string) string    { return strings.ToLower(id) }
func trimTrailing(id string) string { return strings.TrimRight(id, " ") }
func composeAcute(id string) string { return strings.ReplaceAll(id, "e\u0301", "\u00e9") }

// substituteDelimiters builds a key name as a store does whose key language has no ":" or "/".
func substituteDelimiters(id string) string {
	return strings.NewReplacer(":", "_", "/", "_").Replace(id)
}
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// utf16Less orders strings by UTF-16 code units, as Java, JavaScript and .NET compare strings:
// the same as byte order except that characters beyond U+FFFF (surrogate pairs, D800–DFFF) sort
// before U+E000–U+FFFF.
func utf16Less(a, b string) bool {
	x, y := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return len(x) < len(y)
}
