package spi

import (
	"strings"
)

// NormalizeNumber rewrites a JSON number as sign, digits without leading/trailing zeros and a
// decimal exponent, so "1.50", "15e-1" and "1.5" compare equal and no precision is lost.
func NormalizeNumber(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e := s[i+1:]
		s = s[:i]
		sign := 1
		if strings.HasPrefix(e, "+") {
			e = e[1:]
		} else if strings.HasPrefix(e, "-") {
			sign, e = -1, e[1:]
		}
		n := 0
		for _, c := range e {
			n = n*10 + int(c-'0')
			if n > 1<<30 {
				break
			}
		}
		exp = sign * n
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	digits := intPart + frac
	exp -= len(frac)
	trimmed := strings.TrimLeft(digits, "0")
	if trimmed == "" {
		return "0"
	}
	t2 := strings.TrimRight(trimmed, "0")
	exp += len(trimmed) - len(t2)
	out := t2 + "e" + itoa(exp)
	if neg {
		return "-" + out
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}
