// Command loggen writes a synthetic event log of one execution as NDJSON to stdout: the shape of
// the fold benchmarks (internal/loggen). Usage: loggen [-kind pairs|mix] [-n ENVELOPES] [-bytes N].
// -bytes repeats the generator's turns (renumbering sequences) until at least N bytes are written,
// for multi-gigabyte logs in bounded memory.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/loom-kernel/loom-conform/bench/logs"
)

func main() {
	kind := flag.String("kind", "mix", "pairs (step start/complete pairs, a decision, an application event) or mix (the realistic mix)")
	n := flag.Int("n", 100_000, "envelopes to write (ignored with -bytes)")
	size := flag.Int64("bytes", 0, "write at least this many bytes instead of -n envelopes")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var err error
	if *size > 0 {
		err = logs.WriteBytes(w, *kind, *size)
	} else {
		var b []byte
		if b, err = logs.Log(*kind, *n); err == nil {
			_, err = w.Write(b)
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loggen:", err)
		os.Exit(2)
	}
}
