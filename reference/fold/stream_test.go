package fold

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

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

// Reference: DESIGN §3.1, I-FOLD-11 — FoldReader folds a log longer than its read buffer to the
// state FoldBytes folds, whatever the sizes of the reads under it: envelopes decoded where they
// lie in the buffer, framed across reads, or (types without a handler) never copied out of it.
func TestFoldReaderMatchesFoldBytesAcrossReads(t *testing.T) {
	raw := benchLog(12_000) // several read buffers long
	if len(raw) < 2*readBufferBytes {
		t.Fatalf("log of %d bytes does not span two read buffers", len(raw))
	}
	st, err := FoldBytes(Current(), nil, raw)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := st.MarshalJSON()
	for name, r := range map[string]func() io.Reader{
		"one read": func() io.Reader { return bytes.NewReader(raw) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(raw)) },
		"one-byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(raw)) },
	} {
		st, err := FoldReader(Current(), nil, r(), DecodeOptions{SizeHint: int64(len(raw))})
		if err != nil {
			t.Fatalf("fold/stream-framing [I-FOLD-11]: FoldReader(%s) = %v", name, err)
		}
		if got, _ := st.MarshalJSON(); !bytes.Equal(got, want) {
			t.Errorf("fold/stream-framing [I-FOLD-11]: FoldReader(%s) = %d bytes of state, want FoldBytes' %d", name, len(got), len(want))
		}
	}
}

// The word-at-a-time string scans agree with byte-by-byte readings: where the string ends, and
// whether its body holds an escape or a non-ASCII byte.
func TestStringScansMatchBytewise(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{'"', '\\', 'n', 'u', '0', 'a', 0x1f, 0x7f, 0x80, 0xc3, 0xa9}
	for range 100_000 {
		body := make([]byte, r.IntN(40))
		for k := range body {
			body[k] = alphabet[r.IntN(len(alphabet))]
		}
		b := append(append([]byte{'"'}, body...), '"')
		end, special, err := skipStringSpecial(b, 0)
		wantEnd, wantErr := skipString(b, 0)
		if end != wantEnd || (err == nil) != (wantErr == nil) {
			t.Fatalf("skipStringSpecial(%q) = %d, %v, want %d, %v", b, end, err, wantEnd, wantErr)
		}
		if err == nil {
			s := b[1 : end-1]
			if want := bytes.IndexByte(s, '\\') >= 0 || bytes.IndexFunc(s, func(c rune) bool { return c >= 0x80 || c == utf8.RuneError }) >= 0; special != want {
				t.Fatalf("skipStringSpecial(%q) special = %v, want %v", b, special, want)
			}
			if !special && hasEscape(s) {
				t.Fatalf("skipStringSpecial(%q) special = false, hasEscape = true", b)
			}
			tEnd, tSpecial := skipStringTrustedEsc(b, 0)
			if tEnd != end || tSpecial != special {
				t.Fatalf("skipStringTrustedEsc(%q) = %d, %v, want %d, %v", b, tEnd, tSpecial, end, special)
			}
		}
	}
}
