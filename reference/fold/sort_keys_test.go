package fold

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Reference: spec §3 emit identity (canonical form), DESIGN §3.3 — sortBytewise orders keys as a comparison sort does, on both sides of
// radixFrom, with keys that share their first 8 bytes, that are prefixes of one another, that hold
// NUL bytes and that are empty.
func TestSortBytewiseAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shapes := map[string]func(i int) string{
		"counter":     func(i int) string { return fmt.Sprintf("s%d", i) },
		"long-shared": func(i int) string { return fmt.Sprintf("activity-%d-of-run", r.IntN(1000)) + fmt.Sprint(i) },
		"nul-and-prefix": func(i int) string {
			b := make([]byte, r.IntN(10))
			for j := range b {
				b[j] = []byte{0, 'a', 'b', 0xff}[r.IntN(4)]
			}
			return string(b) + fmt.Sprint(i%3)
		},
		"random": func(int) string {
			b := make([]byte, r.IntN(12))
			for j := range b {
				b[j] = byte(r.IntN(256))
			}
			return string(b)
		},
	}
	for name, gen := range shapes {
		for _, n := range []int{0, 1, radixFrom - 1, radixFrom, 3 * radixFrom, 20_000} {
			keys := make([]string, n)
			for i := range keys {
				keys[i] = gen(i)
			}
			if name == "random" && n > 2 {
				keys[1] = "" // the empty key, and a duplicate
				keys[2] = keys[0]
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			sortBytewise(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("fold/canonical-order-radix [S3.emit.canonical-form]: sortBytewise(%s, %d keys) differs from slices.Sort", name, n)
			}
		}
	}
}

func BenchmarkSortKeys(b *testing.B) {
	keys := make([]string, 25_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("s%d", i)
	}
	rand.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for _, s := range []struct {
		name string
		sort func([]string)
	}{{"radix", sortBytewise}, {"pdq", slices.Sort[[]string]}} {
		b.Run(s.name, func(b *testing.B) {
			buf := make([]string, len(keys))
			for b.Loop() {
				copy(buf, keys)
				s.sort(buf)
			}
		})
	}
}
