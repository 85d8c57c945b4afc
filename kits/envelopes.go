package kits

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/spi"
)

// env builds a plain envelope of exec at seq with a payload that names it.
func env(exec string, seq int64, tag string) spi.Envelope {
	return spi.Envelope{
		ID:          fmt.Sprintf("%s#%d", exec, seq),
		WorkflowID:  "wf-kit",
		ExecutionID: exec,
		EventType:   "KIT_EVENT",
		Sequence:    seq,
		Timestamp:   1_700_000_000_000 + seq,
		Payload:     json.RawMessage(fmt.Sprintf(`{"tag":%q,"seq":%d}`, tag, seq)),
	}
}

// batch builds envelopes from..from+n-1 of exec.
func batch(exec string, from int64, n int, tag string) []spi.Envelope {
	out := make([]spi.Envelope, n)
	for i := range out {
		out[i] = env(exec, from+int64(i), tag)
	}
	return out
}

// valueEnvelopes builds one envelope of exec per value, from sequence 0, carrying the value's
// payload and metadata and awkward text in every other field.
func valueEnvelopes(exec string, values []struct{ name, payload, metadata string }) []spi.Envelope {
	out := make([]spi.Envelope, len(values))
	for i, hv := range values {
		e := env(exec, int64(i), hv.name)
		e.ID = fmt.Sprintf("id-%s-✓-%d", hv.name, i)
		e.WorkflowID = "wf/ünï"
		e.EventType = "KIT_" + hv.name
		e.Timestamp = 1_767_225_600_123 + int64(i)
		e.Payload = json.RawMessage(hv.payload)
		if hv.metadata != "" {
			e.Metadata = json.RawMessage(hv.metadata)
		}
		out[i] = e
	}
	return out
}

// envCmp compares envelopes by value: payload and metadata as JSON values.
var envCmp = cmp.Options{
	cmp.Comparer(func(a, b json.RawMessage) bool {
		if len(a) == 0 || len(b) == 0 {
			return len(a) == len(b)
		}
		return spi.SameJSON(a, b)
	}),
}

// seqs lists the sequences of envs.
func seqs(envs []spi.Envelope) []int64 {
	out := make([]int64, len(envs))
	for i, e := range envs {
		out[i] = e.Sequence
	}
	return out
}

func seqRange(from, through int64) []int64 {
	out := []int64{}
	for s := from; s <= through; s++ {
		out = append(out, s)
	}
	return out
}

func splitTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func tagsOf(envs []spi.Envelope) string {
	tags := make([]string, len(envs))
	for i, e := range envs {
		var p struct {
			Tag string `json:"tag"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		tags[i] = p.Tag
	}
	return strings.Join(tags, ",")
}

func nonNil(e []spi.Envelope) []spi.Envelope {
	if e == nil {
		return []spi.Envelope{}
	}
	return e
}

func appendArgs(exec string, events []spi.Envelope, opts spi.AppendOptions) string {
	s := fmt.Sprintf("%q, ", exec)
	switch len(events) {
	case 0:
		s += "[]"
	case 1:
		s += fmt.Sprintf("[seq %d]", events[0].Sequence)
	default:
		s += fmt.Sprintf("[seq %d..%d]", events[0].Sequence, events[len(events)-1].Sequence)
	}
	if opts.Fence != 0 {
		s += fmt.Sprintf(", fence %d", opts.Fence)
	}
	return s
}

// readWhole checks one read of a log written in whole batches of size: dense from first, its
// length a multiple of size, each batch one tag.
func wholeBatches(envs []spi.Envelope, first int64, size int) string {
	if len(envs)%size != 0 {
		return fmt.Sprintf("%d envelopes, not a whole number of batches of %d", len(envs), size)
	}
	for i, e := range envs {
		if e.Sequence != first+int64(i) {
			return fmt.Sprintf("sequence %d at position %d", e.Sequence, i)
		}
		if i%size != 0 && tagOf(e) != tagOf(envs[i-1]) {
			return fmt.Sprintf("envelope %d from another batch (%s after %s)", e.Sequence, tagOf(e), tagOf(envs[i-1]))
		}
	}
	return ""
}

func tagOf(e spi.Envelope) string { return tagsOf([]spi.Envelope{e}) }
