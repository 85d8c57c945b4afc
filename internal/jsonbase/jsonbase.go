// Package jsonbase is the baseline the fold's speed is stated against (I-PERF-11): encoding/json
// decoding each NDJSON line of a log into an spi.Envelope, payload and metadata kept raw. The
// fitness gates and the benchmarks run it in process and, end to end as the fold command runs,
// as a child process (jsonbase/jsondecode), so that both sides of a ratio pay a process's start,
// its reading of the file and its fresh memory alike.
package jsonbase

import (
	"bytes"
	"encoding/json"

	"github.com/loom-kernel/loom-conform/spi"
)

// Decode decodes each NDJSON line of log into an spi.Envelope and drops it.
func Decode(log []byte) error {
	for len(log) > 0 {
		i := bytes.IndexByte(log, '\n')
		if i < 0 {
			i = len(log)
		}
		if line := bytes.TrimSpace(log[:i]); len(line) > 0 {
			var e spi.Envelope
			if err := json.Unmarshal(line, &e); err != nil {
				return err
			}
		}
		log = log[min(i+1, len(log)):]
	}
	return nil
}
