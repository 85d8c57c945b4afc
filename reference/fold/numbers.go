package fold

import (
	"math"
	"strconv"
	"unsafe"
)

// finiteNumber reads the raw JSON value v as JSON.parse reads a number (an IEEE double: -0 stays
// -0, a magnitude below the smallest subnormal becomes ±0, an integer past 2^53 is rounded) and
// reports whether it is a finite number. A literal beyond the double range (1e400) is Infinity to
// JSON.parse, which no state can print (JSON.stringify writes null), so the fold never reads it
// as a number (I-FOLD-29). ok is false for a value that is not a number.
func finiteNumber(v []byte) (float64, bool) {
	t := trimRaw(v)
	if len(t) == 0 || !isNumber(t) {
		return 0, false
	}
	if len(t) <= 15 { // plain digits: exact, far inside the double range
		var n int64
		k := 0
		for ; k < len(t) && t[k] >= '0' && t[k] <= '9'; k++ {
			n = n*10 + int64(t[k]-'0')
		}
		if k == len(t) {
			return float64(n), true
		}
	}
	x, err := strconv.ParseFloat(unsafe.String(&t[0], len(t)), 64) // read-only view: no copy
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, false
	}
	return x, true
}
