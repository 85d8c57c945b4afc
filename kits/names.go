package kits

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

func other(id, a, b string) string {
	if id == a {
		return b
	}
	return a
}

// idPairs are pairs of ids a store must keep apart on every method of every seam (I-STORE-4,
// I-STORE-27): they differ only by case, by a trailing space, by Unicode normal form (é precomposed
// vs e + U+0301), or one extends the other, plainly or after a delimiter stores join names with (a
// store that keys rows by id + ":" + sequence, or deletes by id + "-%", reads or deletes one id's
// rows when asked for the other); or they differ by one delimiter swapped for another or for its
// escape (a store that maps ":" and blanks to "_" to build key names keeps "a:b" and "a_b" in one
// row); or they are spi.MaxIDBytes long and differ only in their last byte (a store that cuts ids
// to 255 bytes, or hashes a prefix, merges them; I-STORE-80).
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
	for i, d := range delimiters {
		for j, e := range delimiters[i+1:] {
			x := fmt.Sprintf("%s-s%d.%d-a", base, i, i+1+j)
			pairs = append(pairs, [2]string{x + d + "b", x + e + "b"})
		}
	}
	for i, e := range delimiterEscapes {
		x := fmt.Sprintf("%s-e%d-a", base, i)
		pairs = append(pairs, [2]string{x + e[0] + "b", x + e[1] + "b"})
	}
	return append(pairs, longPair(base))
}

// longPair is two ids of exactly spi.MaxIDBytes bytes that differ only in their last byte.
func longPair(base string) [2]string {
	x := base + "-long-"
	x += strings.Repeat("x", max(0, spi.MaxIDBytes-1-len(x)))
	return [2]string{x + "a", x + "b"}
}

// delimiters are the separators stores join names with, or substitute for characters a key
// language does not allow: a name holding one must stay one name, apart from the name with
// another delimiter in its place. NUL is left out: PostgreSQL text and many key-value stores cannot
// hold it, and no rule asks them to.
var delimiters = []string{":", "/", ".", "|", "_", "-", " ", "%"}

// delimiterEscapes pair a delimiter with an escape a store may write it as (percent-encoding, form
// encoding, a backslash): a store that escapes one and not the other, or unescapes what it reads,
// merges the two.
var delimiterEscapes = [][2]string{
	{":", "%3A"}, {"/", "%2F"}, {".", "%2E"}, {"|", "%7C"}, {" ", "%20"}, {" ", "+"}, {"%", "%25"},
	{":", `\:`}, {"_", `\_`}, {"/", `\/`},
}

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
