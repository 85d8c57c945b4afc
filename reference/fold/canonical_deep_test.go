package fold

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// nested builds a value nested depth levels deep whose objects hold their keys out of order, a
// repeated key and an escaped one, around a payload of the given size at the bottom.
func nested(depth, payload int) string {
	var b strings.Builder
	for i := 0; i < depth; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"z":%d,"\u0061":true,"m":"x","m":"y","k":`, i)
		} else {
			b.WriteString(`[null,"e",`)
		}
	}
	b.WriteString(`"` + strings.Repeat("p", payload) + `"`)
	for i := depth - 1; i >= 0; i-- {
		if i%2 == 0 {
			b.WriteString(`}`)
		} else {
			b.WriteString(`]`)
		}
	}
	return b.String()
}

// sortedModel is the canonical form by way of encoding/json (Go sorts map keys; for the ASCII keys
// and values of nested, that is the UTF-16 order and the escaping JavaScript uses).
func sortedModel(t *testing.T, s string) string {
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Reference: DESIGN §3.3 — the indexed transcoding of deep values is the canonical form.
func TestCanonicalDeepIsCanonical(t *testing.T) {
	for _, depth := range []int{1, deepFrom - 1, deepFrom, deepFrom + 1, 3 * deepFrom, 500} {
		in := nested(depth, 10)
		got, err := CanonicalJSON([]byte(in))
		if err != nil {
			t.Fatalf("CanonicalJSON(depth %d): %v", depth, err)
		}
		if want := sortedModel(t, in); string(got) != want {
			t.Fatalf("CanonicalJSON(depth %d) =\n%s\nwant\n%s", depth, got, want)
		}
	}
	if _, err := CanonicalJSON([]byte(strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1))); err == nil {
		t.Fatal("CanonicalJSON(MaxDepth+1 levels) = nil error")
	}
}

// FuzzCanonicalIndexed: the indexed transcoder agrees with the scanning one on every value.
func FuzzCanonicalIndexed(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1e21,{"d":"\u00e9","c":null}],"a":2}`, `[[[]]]`, `"x"`, `{"\ud83d\ude00":1,"\ufb33":2}`, nested(20, 3)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if validJSON(data) != nil {
			return
		}
		raw := trimRaw(data)
		scanned, serr := appendCanonicalRaw(nil, raw, 0)
		indexed, ierr := appendIndexed(nil, raw, indexContainers(raw), 0, 0)
		if (serr == nil) != (ierr == nil) || string(scanned) != string(indexed) {
			t.Fatalf("%q: scanned %q (%v), indexed %q (%v)", data, scanned, serr, indexed, ierr)
		}
	})
}

// BenchmarkCanonicalDeep reports the time per input byte of canonical transcoding of values
// nested 1 000 to 8 000 deep, and the ratio of the deepest to the shallowest: about 1 when the
// cost is linear in the size whatever the nesting (it was 8 when every level re-read the levels
// below it).
func BenchmarkCanonicalDeep(b *testing.B) {
	perByte := map[int]float64{}
	depths := []int{1000, 2000, 4000, 8000}
	for range b.N {
		for _, d := range depths {
			in := []byte(nested(d, 16))
			start := time.Now()
			if _, err := CanonicalJSON(in); err != nil {
				b.Fatal(err)
			}
			ns := float64(time.Since(start).Nanoseconds()) / float64(len(in))
			if perByte[d] == 0 || ns < perByte[d] {
				perByte[d] = ns
			}
		}
	}
	for _, d := range depths {
		b.ReportMetric(perByte[d], fmt.Sprintf("ns/byte@depth%d", d))
	}
	b.ReportMetric(perByte[8000]/perByte[1000], "depth8000/depth1000")
}
