package fold

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// streamCases are logs whose envelopes, strings, escapes and errors straddle read boundaries.
func streamCases() map[string]string {
	env := func(seq int, payload string) string {
		return fmt.Sprintf(`{"id":"e%d","workflowId":"w","executionId":"x","eventType":"custom.t","sequence":%d,"timestamp":1,"payload":%s}`, seq, seq, payload)
	}
	cases := map[string]string{
		"bench":         string(benchLog(300)),
		"escapes":       env(0, `{"a":"q\"}{[","b":"\\","c":"\\\"","d":"\u0022}"}`) + "\n" + env(1, `"\\\\"`),
		"array":         "[" + env(0, `1`) + " , " + env(1, `"]"`) + "]",
		"unterminated":  env(0, `1`) + "\n" + `{"id":"a","payload":{"x":"y`,
		"unterminated2": env(0, `1`) + "\n" + `{"id":"a","workflowId":"w\`,
		"deep":          `{"id":"a","payload":` + strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2) + `}`,
		"not-object":    env(0, `1`) + "\n" + `[1]`,
		"trailing":      "[" + env(0, `1`) + "] x",
		"key-escape":    `{"id":"a","pay\u006coad":{"x":1`,
	}
	for i, s := range foldSeeds {
		cases[fmt.Sprintf("seed/%d", i)] = s
	}
	return cases
}

// Reference: DESIGN §3.1, I-FOLD-11 — the streaming decoder frames envelopes the same whatever
// the sizes of the reads under it: the same envelopes, or the same error naming index and field.
func TestStreamFramingReadSizeIndependent(t *testing.T) {
	type result struct {
		Events []string
		Err    string
	}
	decode := func(data []byte, wrap func([]byte) any) result {
		var r result
		var err error
		switch w := wrap(data).(type) {
		case []byte:
			_, err = DecodeLogBytes(w)
			if err == nil {
				evs, _ := DecodeLogBytes(w)
				for _, e := range evs {
					r.Events = append(r.Events, fmt.Sprintf("%s %s %d %s %s", e.WorkflowID, e.EventType, e.Sequence, e.Payload, e.Metadata))
				}
			}
		default:
			var evs = []string{}
			rd := w.(interface{ Read([]byte) (int, error) })
			_, err = DecodeLog(rd, DecodeOptions{MaxEnvelopeBytes: 1 << 20})
			if err == nil {
				all, _ := DecodeLog(wrap(data).(interface{ Read([]byte) (int, error) }), DecodeOptions{})
				for _, e := range all {
					evs = append(evs, fmt.Sprintf("%s %s %d %s %s", e.WorkflowID, e.EventType, e.Sequence, e.Payload, e.Metadata))
				}
				if len(evs) > 0 {
					r.Events = evs
				}
			}
		}
		if err != nil {
			r.Err = err.Error()
		}
		return r
	}
	readers := map[string]func([]byte) any{
		"one-byte": func(b []byte) any { return iotest.OneByteReader(bytes.NewReader(b)) },
		"half":     func(b []byte) any { return iotest.HalfReader(bytes.NewReader(b)) },
	}
	for name, c := range streamCases() {
		want := decode([]byte(c), func(b []byte) any { return bytes.NewReader(b) })
		for rn, wrap := range readers {
			if got := decode([]byte(c), wrap); !cmp.Equal(want, got) {
				t.Errorf("fold/stream-framing [I-FOLD-11]: DecodeLog(%s reader, %s) differs from one read (-want +got):\n%s", rn, name, cmp.Diff(want, got))
			}
		}
	}
}

// plain8, the word-at-a-time string scan, agrees with the byte table it speeds up.
func TestPlain8MatchesByteTable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 { // random words, biased to the bytes that matter
		var b [8]byte
		for k := range b {
			b[k] = []byte{'"', '\\', 0x1f, 0x20, 0x7f, 0x80, 0xff, byte(r.IntN(256))}[r.IntN(8)]
		}
		want := true
		for _, x := range b {
			want = want && strPlain[x]
		}
		if plain8(b[:]) != want {
			t.Fatalf("plain8(%q) = %v", b, !want)
		}
	}
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 8; pos++ {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			want := true
			for _, x := range b {
				want = want && strPlain[x]
			}
			if plain8(b) != want {
				t.Fatalf("plain8(%q) = %v", b, !want)
			}
		}
	}
}
