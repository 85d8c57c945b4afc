package certify

import (
	"testing"
	"time"
)

// A kernel is slow when its median round trip is more than 10 times the reference's and 5 ms
// above it: a kernel 40 ms a call is, a kernel as fast as the reference or a few hundred
// microseconds slower is not.
func TestJudgeLatency(t *testing.T) {
	const ms = time.Millisecond
	ref := []time.Duration{200 * time.Microsecond, 150 * time.Microsecond, 300 * time.Microsecond}
	for _, tc := range []struct {
		name string
		got  []time.Duration
		slow bool
	}{
		{"40 ms a call", []time.Duration{41 * ms, 40 * ms, 45 * ms}, true},
		{"as fast as the reference", []time.Duration{200 * time.Microsecond, 250 * time.Microsecond, 180 * time.Microsecond}, false},
		{"10 times slower but under 5 ms above", []time.Duration{3 * ms, 3 * ms, 3 * ms}, false},
		{"one slow sample", []time.Duration{41 * ms, 200 * time.Microsecond, 250 * time.Microsecond}, false},
	} {
		l := judgeLatency(tc.got, ref)
		if l.Slow != tc.slow {
			t.Errorf("certify/kernel-slow-note: judgeLatency(%s) = %+v, want slow %v", tc.name, l, tc.slow)
		}
	}
}
