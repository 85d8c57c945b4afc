package kits

import "sort"

// idPairs are pairs of ids a store must keep apart on every method of every seam (I-STORE-4,
// I-STORE-27): they differ only by case, by a trailing space, by Unicode normal form (é precomposed
// vs e + U+0301), or one extends the other.
func idPairs(base string) [][2]string {
	return [][2]string{
		{base + "-Case", base + "-case"},
		{base + "-pad", base + "-pad "},
		{base + "-caf\u00e9", base + "-cafe\u0301"},
		{base + "-x", base + "-x0"},
	}
}

// byteOrderIDs are sibling ids whose byte order differs from every case-insensitive, padding or
// locale collation (upper case sorts before lower case, "a" before "a " before "a0"), with the
// order the kit expects (I-STORE-28).
func byteOrderIDs(prefix string) (ids, ascending []string) {
	ids = []string{prefix + "b", prefix + "B", prefix + "a0", prefix + "a", prefix + "A", prefix + "a ",
		prefix + "caf\u00e9", prefix + "cafe\u0301", prefix + "Z", prefix + "_"}
	ascending = append([]string(nil), ids...)
	sort.Strings(ascending) // Go compares strings as bytes
	return ids, ascending
}
