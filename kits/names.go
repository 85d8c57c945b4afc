package kits

import (
	"fmt"
	"sort"
)

func other(id, a, b string) string {
	if id == a {
		return b
	}
	return a
}

// idPairs are pairs of ids a store must keep apart on every method of every seam (I-STORE-4,
// I-STORE-27): they differ only by case, by a trailing space, by Unicode normal form (é precomposed
// vs e + U+0301), or one extends the other, plainly or after a delimiter stores join names with
// (a store that keys rows by id + ":" + sequence, or lists children by path, reads one id's rows
// when asked for the other).
func idPairs(base string) [][2]string {
	pairs := [][2]string{
		{base + "-Case", base + "-case"},
		{base + "-pad", base + "-pad "},
		{base + "-caf\u00e9", base + "-cafe\u0301"},
		{base + "-x", base + "-x0"},
	}
	for i, d := range delimiters {
		x := fmt.Sprintf("%s-d%d", base, i)
		pairs = append(pairs, [2]string{x, x + d + "q"})
	}
	return pairs
}

// delimiters are the separators stores join names with: a name holding one must stay one name.
// NUL is left out: PostgreSQL text and many key-value stores cannot hold it, and no rule asks them to.
var delimiters = []string{":", "/", ".", "|"}

// byteOrderIDs are sibling ids whose byte order differs from every case-insensitive, padding or
// locale collation (upper case sorts before lower case, "a" before "a " before "a0") and from
// UTF-16 code-unit order (Java, JavaScript and .NET string order), which puts characters beyond
// U+FFFF before those in U+E000–U+FFFF where UTF-8 bytes put them after, with the order the kit
// expects (I-STORE-28).
func byteOrderIDs(prefix string) (ids, ascending []string) {
	ids = []string{prefix + "b", prefix + "B", prefix + "a0", prefix + "a", prefix + "A", prefix + "a ",
		prefix + "caf\u00e9", prefix + "cafe\u0301", prefix + "Z", prefix + "_",
		prefix + "\U0001F9F5", prefix + "\uFF21", prefix + "\uE000", prefix + "\U00010000"}
	ascending = append([]string(nil), ids...)
	sort.Strings(ascending) // Go compares strings as bytes
	return ids, ascending
}
