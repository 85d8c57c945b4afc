package kits

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

// respell writes the same JSON value with other bytes: keys in reverse order, numbers with an
// exponent, ASCII letters of strings as \u escapes.
func respell(raw json.RawMessage) json.RawMessage {
	v, err := decodeNumbers(raw)
	if err != nil {
		return raw
	}
	var b strings.Builder
	writeRespelled(&b, v)
	return json.RawMessage(b.String())
}

func decodeNumbers(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func writeRespelled(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sortDesc(keys)
		b.WriteString("{ ")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(" , ")
			}
			writeRespelled(b, k)
			b.WriteString(" : ")
			writeRespelled(b, x[k])
		}
		b.WriteString(" }")
	case []any:
		b.WriteString("[ ")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRespelled(b, e)
		}
		b.WriteString(" ]")
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			// 42 -> 420e-1: the same value, another spelling.
			s += "0e-1"
		} else {
			s = strings.Replace(s, "e", "E", 1)
		}
		b.WriteString(s)
	case string:
		b.WriteByte('"')
		for _, r := range x {
			switch {
			case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
				fmt.Fprintf(b, `\u%04X`, r)
			default:
				enc, _ := json.Marshal(string(r))
				b.Write(enc[1 : len(enc)-1])
			}
		}
		b.WriteByte('"')
	default:
		enc, _ := json.Marshal(x)
		b.Write(enc)
	}
}

func sortDesc(xs []string) { sort.Sort(sort.Reverse(sort.StringSlice(xs))) }

func respelledEnvelope(e spi.Envelope) spi.Envelope {
	e.Payload = respell(e.Payload)
	if len(e.Metadata) > 0 {
		e.Metadata = respell(e.Metadata)
	}
	return e
}
