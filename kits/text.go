package kits

import "unicode/utf8"

// clipS cuts s to about 60 bytes, between characters.
func clipS(s string) string {
	if len(s) <= 60 {
		return s
	}
	n := 60
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func upper(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if ch >= 'a' && ch <= 'z' {
			b[i] = ch - 32
		}
	}
	return string(b)
}
