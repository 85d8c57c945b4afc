package jsonstrict

import (
	"math"
	"strconv"
)

// scanNumber returns the index past the RFC 8259 number starting at b[i].
func scanNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return i, false
		}
	}
	return i, true
}

// decimal is a number's value as significant digits (no leading or trailing zero; "" for zero)
// and the power of ten p with value = 0.digits × 10^p.
type decimal struct {
	digits string
	p      int
}

// parseDecimal reads a valid JSON number (its sign ignored).
func parseDecimal(tok []byte) decimal {
	i := 0
	if tok[0] == '-' {
		i++
	}
	var digits []byte
	intDigits := 0
	for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
		digits = append(digits, tok[i])
		intDigits++
	}
	if i < len(tok) && tok[i] == '.' {
		for i++; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
			digits = append(digits, tok[i])
		}
	}
	exp := 0
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		neg := false
		if tok[i] == '+' || tok[i] == '-' {
			neg = tok[i] == '-'
			i++
		}
		for ; i < len(tok); i++ {
			if exp < 1e9 { // far past any double: the value is out of range either way
				exp = exp*10 + int(tok[i]-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	end := len(digits)
	for end > lead && digits[end-1] == '0' {
		end--
	}
	if lead == end {
		return decimal{}
	}
	return decimal{digits: string(digits[lead:end]), p: intDigits - lead + exp}
}

// inexact says why an IEEE double does not hold the number tok exactly ("" when it does): the
// double nearest to it, printed shortest (as JavaScript prints it), must be the same value.
func inexact(tok []byte) string {
	d := parseDecimal(tok)
	// Up to 15 significant digits a decimal in the normal range survives a double exactly.
	if d.digits == "" || (len(d.digits) <= 15 && d.p > -300 && d.p < 300) {
		return ""
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	switch {
	case math.IsInf(f, 0) || (err != nil && f != 0):
		return string(tok) + " overflows an IEEE double (the kernel's number model)"
	case f == 0:
		return string(tok) + " underflows to 0 in an IEEE double (the kernel's number model)"
	}
	back := strconv.FormatFloat(f, 'e', -1, 64)
	if parseDecimal([]byte(back)) == d {
		return ""
	}
	shown := strconv.FormatFloat(f, 'g', -1, 64)
	if math.Abs(f) < 1e21 && f == math.Trunc(f) {
		shown = strconv.FormatFloat(f, 'f', -1, 64)
	}
	return string(tok) + " is not exact in an IEEE double (the kernel's number model): it would read back as " + shown
}
