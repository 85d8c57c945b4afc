// Package logs names the benchmark logs of internal/loggen and streams long ones.
package logs

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/loom-kernel/loom-conform/internal/loggen"
)

// Log returns n envelopes of the named kind: "pairs" or "mix".
func Log(kind string, n int) ([]byte, error) {
	switch kind {
	case "pairs":
		return loggen.Pairs(n), nil
	case "mix":
		return loggen.Mix(n), nil
	}
	return nil, fmt.Errorf("unknown log kind %q (want pairs or mix)", kind)
}

// WriteBytes writes at least size bytes of one execution's log of the named kind: blocks of
// 100 000 envelopes, each block's sequences, ids and timestamps renumbered to continue the last,
// and its execution start dropped after the first, so the log folds (step ids repeat per block:
// the state stays the size of one block while the log grows).
func WriteBytes(w io.Writer, kind string, size int64) error {
	const block = 100_000
	b, err := Log(kind, block)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	var written int64
	seq := 0
	for first := true; written < size; first = false {
		for i, line := range lines {
			if len(line) == 0 || (!first && i == 0) {
				continue
			}
			l := renumber(line, seq)
			seq++
			n, err := w.Write(l)
			written += int64(n)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// renumber rewrites the "sequence", "id" and "timestamp" members the generator writes.
func renumber(line []byte, seq int) []byte {
	out := line
	for _, m := range []struct{ key, prefix string }{{`"sequence":`, ""}, {`"timestamp":`, "17"}} {
		i := bytes.Index(out, []byte(m.key))
		if i < 0 {
			continue
		}
		j := i + len(m.key)
		k := j
		for k < len(out) && out[k] >= '0' && out[k] <= '9' {
			k++
		}
		v := strconv.Itoa(seq)
		if m.prefix != "" {
			v = strconv.FormatInt(1_700_000_000_000+int64(seq), 10)
		}
		out = append(append(append([]byte{}, out[:j]...), v...), out[k:]...)
	}
	return out
}
