package certify

import (
	"strings"
	"testing"
	"time"
)

// A target is slow when its median round trip is more than 10 times the reference's and 15 ms
// above it: a target 40 ms a call is, one as fast as the reference or a few hundred microseconds
// slower is not. A slow median in the delayed-ACK band is named as Nagle's algorithm (I-CERT-31).
func TestJudgeLatency(t *testing.T) {
	const ms = time.Millisecond
	ref := []time.Duration{200 * time.Microsecond, 150 * time.Microsecond, 300 * time.Microsecond}
	for _, tc := range []struct {
		name        string
		got         []time.Duration
		slow, nagle bool
	}{
		{"40 ms a call", []time.Duration{41 * ms, 40 * ms, 45 * ms}, true, true},
		{"200 ms a call", []time.Duration{200 * ms, 201 * ms, 205 * ms}, true, false},
		{"as fast as the reference", []time.Duration{200 * time.Microsecond, 250 * time.Microsecond, 180 * time.Microsecond}, false, false},
		{"10 times slower but under 15 ms above", []time.Duration{3 * ms, 6 * ms, 12 * ms}, false, false},
		{"one slow sample", []time.Duration{41 * ms, 200 * time.Microsecond, 250 * time.Microsecond}, false, false},
	} {
		l := judgeLatency(tc.got, ref)
		if l.Slow != tc.slow || l.Nagle != tc.nagle {
			t.Errorf("certify/kernel-slow-note: judgeLatency(%s) = %+v, want slow %v, Nagle %v", tc.name, l, tc.slow, tc.nagle)
		}
		l.Call = "bridge.handshake"
		if note := SlowNote(l, 20*time.Second); tc.nagle != strings.Contains(note, "Nagle's algorithm meeting delayed ACKs") || !strings.Contains(note, "TCP_NODELAY") {
			t.Errorf("certify/kernel-slow-note: SlowNote(%s) = %q, want Nagle named iff the median is near 40 ms, and TCP_NODELAY", tc.name, note)
		}
	}
}
