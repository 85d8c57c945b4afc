package kernelkit

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// emitTypes are the event types of the emit, stream and ui statements of every script of case k;
// with inParallel, of those inside a parallel of two or more branches only.
func emitTypes(k clients.Case, inParallel bool) map[string]bool {
	out := map[string]bool{}
	var walk func(body []flowscript.Stmt, par bool)
	walk = func(body []flowscript.Stmt, par bool) {
		for _, st := range body {
			switch st.Op {
			case "emit", "stream", "ui":
				if par || !inParallel {
					out[st.EventType] = true
				}
			}
			for _, b := range st.Branches {
				walk(b, par || len(st.Branches) > 1)
			}
		}
	}
	walk(k.Script.Body, false)
	for _, a := range k.Driver.Actions {
		if a.Script != nil {
			walk(a.Script.Body, false)
		}
	}
	return out
}

// emitsInParallel reports whether case k emits inside a parallel of two or more branches.
func emitsInParallel(k clients.Case) bool { return len(emitTypes(k, true)) > 0 }

// alignParallelEmits: an emit made inside a parallel of two or more branches may be stamped when
// nothing of the run is in flight, as §3's literal rule allows (I-KERNEL-5: the reference never
// stamps one), and a branch counts a digest's emits as the kernel chooses (I-KERNEL-18), so which
// of those emits, and of the same content after the join, a later run serves is the kernel's.
//
// The first run (up to its first park, or the first envelope of a re-drive) is compared whole, up
// to those stamps: where the kernel stamped such an emit with its digest and the reference did not,
// the stamp is dropped. A later run is compared without its flow emits: where the kernel's later
// runs record the reference's envelopes but for emits of the script's event types (each stamped
// with its digest, or not), the reference's are taken. Then, when the logs agree, the state's
// _flowEmits and sequence are the reference's where the kernel's agree with its own log (the
// fold's count of its stamps, its last sequence).
func alignParallelEmits(k clients.Case, want, got *carrier.Run) {
	inPar, all := emitTypes(k, true), emitTypes(k, false)
	orig := slices.Clone(got.Log)
	segments := 0 // a later run's emits are in one of the segments the log's resumes open
	for _, e := range orig {
		if e.EventType == manifest.ExecutionResumed {
			segments++
		}
	}
	first := firstRunEnd(want.Log)
	for i := range min(first, len(got.Log)) {
		w, g := want.Log[i], got.Log[i]
		if w.EventType == g.EventType && inPar[g.EventType] && flowEmitOf(w) == "" && flowEmitOf(g) != "" &&
			bytes.Equal(normValue(w.Payload), normValue(g.Payload)) && validStamp(g, segments) &&
			sameBeside(w.Metadata, g.Metadata, "flowEmit") {
			got.Log[i].Metadata = w.Metadata
		}
	}
	if first < len(want.Log) && first <= len(got.Log) && sameEnvelopes(want.Log[:first], got.Log[:first]) {
		wr, gr := want.Log[first:], got.Log[first:]
		legal := !slices.ContainsFunc(gr, func(e spi.Envelope) bool { return flowEmitOf(e) != "" && !validStamp(e, segments) })
		if legal && slices.EqualFunc(skeleton(wr, all), skeleton(gr, all), sameEnvelope) {
			got.Log = append(got.Log[:first:first], wr...)
		}
	}
	if len(got.Log) != len(want.Log) || !sameEnvelopes(want.Log, got.Log) || !stateAgrees(got.State, orig) {
		return
	}
	if w := variableOf(want.State, fold.VarFlowEmits); w != nil {
		got.State = string(setVariable(got.State, fold.VarFlowEmits, w))
	} else {
		got.State = string(deleteVariable(got.State, fold.VarFlowEmits))
	}
	got.State = string(setMember(json.RawMessage(got.State), "sequence", memberOf(json.RawMessage(want.State), "sequence")))
}

// firstRunEnd is the index of the first envelope of log a later run wrote: the one after the first
// park, or the first that re-drives (a recovery, a migration, a resume); len(log) when there is none.
func firstRunEnd(log []spi.Envelope) int {
	for i, e := range log {
		switch e.EventType {
		case manifest.ExecutionSuspended, manifest.ExecutionContinued:
			return i + 1
		case manifest.ExecutionRecovered, manifest.ExecutionMigrated, manifest.ExecutionResumed:
			return i
		}
	}
	return len(log)
}

// skeleton is log without its flow emits: the envelopes of types are dropped, but for a resume's
// delivered event (one EXECUTION_RESUMED follows with its payload).
func skeleton(log []spi.Envelope, types map[string]bool) []spi.Envelope {
	var out []spi.Envelope
	for i, e := range log {
		delivered := i+1 < len(log) && log[i+1].EventType == manifest.ExecutionResumed && bytes.Equal(normValue(log[i+1].Payload), normValue(e.Payload))
		if types[e.EventType] && !manifest.IsKernelEventType(e.EventType) && !delivered {
			continue
		}
		out = append(out, e)
	}
	return out
}

// flowEmitOf is an envelope's emit stamp (metadata.flowEmit), "" when it has none.
func flowEmitOf(e spi.Envelope) string {
	var m struct {
		FlowEmit string `json:"flowEmit"`
	}
	_ = json.Unmarshal(e.Metadata, &m)
	return m.FlowEmit
}

// validStamp reports whether e's stamp is the digest of its content in one of the segments 0 to
// segments (spec §3: a stamp is the emit's digest).
func validStamp(e spi.Envelope, segments int) bool {
	for seg := 0; seg <= segments; seg++ {
		if d, err := fold.EmitDigest(seg, e.EventType, e.Payload); err == nil && d == flowEmitOf(e) {
			return true
		}
	}
	return false
}

// stateAgrees reports whether a folded state's _flowEmits counts the stamps of log, digest by
// digest, and its sequence is log's last: the fold's own reading of the kernel's log.
func stateAgrees(state string, log []spi.Envelope) bool {
	counts := map[string]int{}
	for _, e := range log {
		if d := flowEmitOf(e); d != "" {
			counts[d]++
		}
	}
	var st struct {
		Sequence  json.Number `json:"sequence"`
		Variables struct {
			FlowEmits map[string]int `json:"_flowEmits"`
		} `json:"variables"`
	}
	if json.Unmarshal([]byte(state), &st) != nil || len(log) == 0 {
		return false
	}
	if len(st.Variables.FlowEmits) != len(counts) {
		return false
	}
	for d, n := range counts {
		if st.Variables.FlowEmits[d] != n {
			return false
		}
	}
	return spi.NormalizeNumber(string(st.Sequence)) == spi.NormalizeNumber(jsonInt(log[len(log)-1].Sequence))
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
