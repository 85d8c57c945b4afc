package kits

func clipS(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
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
