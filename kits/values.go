package kits

import (
	"fmt"
	"strings"
)

// bigValue is a value with a number a double cannot hold; bigValueNext differs from it only there.
const (
	bigValue     = `{"n":12345678901234567890,"s":"x","o":{"k":[1,2]}}`
	bigValueNext = `{"n":12345678901234567891,"s":"x","o":{"k":[1,2]}}`
)

// hardValues are payloads and metadata a store must keep value-exact (I-STORE-3): every method
// that stores, copies or moves data carries them (append, copyPrefix, archive append and
// replaceSegments, snapshot save, durable-state set, read-model upsert).
func hardValues() []struct{ name, payload, metadata string } {
	deep := strings.Repeat(`{"d":[`, 40) + `"bottom"` + strings.Repeat(`]}`, 40)
	return []struct{ name, payload, metadata string }{
		{"unicode", `{"s":"héllo wörld — 日本語 🧵 \u2028\u2029","k\u00e9":"v"}`, `{"kernel":true}`},
		{"escapes", `{"s":"quote \" backslash \\ slash \/ nl \n tab \t nul \u0000 ctl \u001f","<html>":"&amp;"}`, ``},
		{"lone-surrogate-free-astral", `["\ud83e\uddf5","x"]`, `{"forkChain":["a","b"],"forkedBy":"op"}`},
		{"integers", `{"i":42,"neg":-7,"max53":9007199254740991,"min53":-9007199254740991,"z":-0}`, `{"flowEmit":"00ff00ff00ff00ff"}`},
		{"fractions", `{"f":0.1,"g":1.5e-7,"h":1e+21,"i":-0.000001,"j":1.50,"k":0.1234567890123456,"max":1.7976931348623157e308,"min":5e-324}`, ``},
		// Integers a double holds exactly, that print the same when read as one, and that an int64
		// (or a uint64) does not hold: a store that reads integers as int64 wraps or refuses them
		// (I-STORE-3). 2^63 and 2^64 themselves are doubles too, but a double prints them as
		// 9223372036854775808 only with all of its digits, so a store of doubles (every JavaScript
		// store) keeps them only as the same double, not the same decimal: numbers whose decimals a
		// double changes are I-STORE-25's.
		{"beyond-int64", `{"e19":10000000000000000000,"p":9300000000000000000,"e19x2":20000000000000000000,"n":-9300000000000000000,"e20":-100000000000000000000}`, `{"e19":10000000000000000000}`},
		{"deep-nesting", deep, `{"seal":{"v":1,"cipher":"none","covers":[]}}`},
		{"empty-containers", `{"o":{},"a":[],"s":"","n":null,"nested":{"o":{},"a":[[]]}}`, `{}`},
		{"scalar-null", `null`, ``},
		{"scalar-string", `"just a string"`, ``},
		{"scalar-number", `0`, ``},
		{"booleans", `[true,false,null]`, `{"kernel":false}`},
	}
}

// precisionValues are numbers a double cannot hold: integers beyond 2^53 and 2^64, long fractions.
// Keeping them exact is our recommendation (I-STORE-25, a choice: the spec's fold reads doubles),
// checked apart from every other value (*/roundtrip-precision, recommended), so a store whose
// platform parses JSON numbers as doubles is certified with that recommendation listed.
func precisionValues() []struct{ name, payload, metadata string } {
	return []struct{ name, payload, metadata string }{
		{"big-integers", `{"u64":12345678901234567890,"i":12345678901234567890123456789,"max53":9007199254740993,"neg":-9223372036854775809}`, `{"flowEmit":12345678901234567890}`},
		{"long-fractions", `{"pi":3.141592653589793238462643383279,"tiny":0.100000000000000000000000000001,"e":1.0000000000000000000000001e-30}`, ``},
	}
}

// largeValue returns a payload of at least size bytes and metadata of at least metaSize bytes whose
// content varies along its length (so truncation or a corrupted chunk shows).
func largeValue(size, metaSize int) (payload, metadata string) {
	blob := func(n int, tag string) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "%s%07d ✓ ", tag, i)
		}
		return b.String()
	}
	payload = fmt.Sprintf(`{"blob":%q,"n":[1,2,3],"end":"tail"}`, blob(size, "p"))
	metadata = fmt.Sprintf(`{"notes":%q}`, blob(metaSize, "m"))
	return payload, metadata
}
