package kits

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/spi"
)

// env builds a plain envelope of exec at seq with a payload that names it.
func env(exec string, seq int64, tag string) spi.Envelope {
	return spi.Envelope{
		ID:          fmt.Sprintf("%s#%d", exec, seq),
		WorkflowID:  "wf-kit",
		ExecutionID: exec,
		EventType:   "KIT_EVENT",
		Sequence:    seq,
		Timestamp:   1_700_000_000_000 + seq,
		Payload:     json.RawMessage(fmt.Sprintf(`{"tag":%q,"seq":%d}`, tag, seq)),
	}
}

// batch builds envelopes from..from+n-1 of exec.
func batch(exec string, from int64, n int, tag string) []spi.Envelope {
	out := make([]spi.Envelope, n)
	for i := range out {
		out[i] = env(exec, from+int64(i), tag)
	}
	return out
}

// envCmp compares envelopes by value: payload and metadata as JSON values.
var envCmp = cmp.Options{
	cmp.Comparer(func(a, b json.RawMessage) bool {
		if len(a) == 0 || len(b) == 0 {
			return len(a) == len(b)
		}
		return spi.SameJSON(a, b)
	}),
}

// seqs lists the sequences of envs.
func seqs(envs []spi.Envelope) []int64 {
	out := make([]int64, len(envs))
	for i, e := range envs {
		out[i] = e.Sequence
	}
	return out
}

func seqRange(from, through int64) []int64 {
	out := []int64{}
	for s := from; s <= through; s++ {
		out = append(out, s)
	}
	return out
}

// hardValues are payloads and metadata a store must keep value-exact (I-STORE-3).
func hardValues() []struct{ name, payload, metadata string } {
	deep := strings.Repeat(`{"d":[`, 40) + `"bottom"` + strings.Repeat(`]}`, 40)
	return []struct{ name, payload, metadata string }{
		{"unicode", `{"s":"héllo wörld — 日本語 🧵 \u2028\u2029","k\u00e9":"v"}`, `{"kernel":true}`},
		{"escapes", `{"s":"quote \" backslash \\ slash \/ nl \n tab \t nul \u0000 ctl \u001f","<html>":"&amp;"}`, ``},
		{"lone-surrogate-free-astral", `["\ud83e\uddf5","x"]`, `{"forkChain":["a","b"],"forkedBy":"op"}`},
		{"big-integers", `{"i":12345678901234567890123456789,"max":9007199254740993,"neg":-9223372036854775809}`, `{"flowEmit":"00ff00ff00ff00ff"}`},
		{"fractions", `{"f":0.1,"g":1.5e-7,"h":1e+21,"i":-0.000001,"j":3.141592653589793238462643383279}`, ``},
		{"deep-nesting", deep, `{"seal":{"v":1,"cipher":"none","covers":[]}}`},
		{"empty-containers", `{"o":{},"a":[],"s":"","n":null,"nested":{"o":{},"a":[[]]}}`, `{}`},
		{"scalar-null", `null`, ``},
		{"scalar-string", `"just a string"`, ``},
		{"scalar-number", `0`, ``},
		{"booleans", `[true,false,null]`, `{"kernel":false}`},
	}
}
