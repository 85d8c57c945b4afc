package kernelprops

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// appendedEmit is one emit envelope as the model compares it: its payload and its stamp.
type appendedEmit struct {
	Payload string
	Stamp   string // "" = unstamped
}

func (a appendedEmit) String() string {
	if a.Stamp == "" {
		return a.Payload + "@-"
	}
	return a.Payload + "@" + a.Stamp
}

func stampOf(e spi.Envelope) string {
	var m struct {
		FlowEmit string `json:"flowEmit"`
	}
	_ = json.Unmarshal(e.Metadata, &m)
	return m.FlowEmit
}

func canonical(v any) string {
	b, err := fold.Canonical(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// isBranchEmit reports whether an emit envelope came from a parallel branch.
func isBranchEmit(e spi.Envelope) bool {
	var p struct {
		B bool `json:"b"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	return p.B
}

// checkRunModel is the differential check of one run against the serving and stamping rules of
// spec §3, computed from what flow code observed (timing-free: it reads only the causal order of
// the flow's own statements and which effects and deciders ran live):
//
//   - the n-th emit of digest d is skipped iff the log holds more than n stamped emits of d and no
//     step or decision of the current segment ran live before it;
//   - an appended emit is stamped iff it exceeds the logged count, it is not in a parallel branch
//     (I-KERNEL-5) and no earlier step or decider of the run ended unserved.
//
// The prediction is compared with the emits the run really appended.
func checkRunModel(run RunRecord, before, after []spi.Envelope) error {
	logged := map[string]int{}
	for _, e := range before {
		if s := stampOf(e); s != "" {
			logged[s]++
		}
	}
	nth := map[string]int{}
	seg, live, taint := 0, false, false
	var wantSeq []appendedEmit
	var wantBranch []string
	for _, ev := range run.Trace {
		switch ev.Kind {
		case "effect", "decider":
			live = true
		case "taint":
			taint = true
		case "gate":
			seg, live = ev.Segment, false
		case "emit":
			payload := canonical(emitPayload(ev.Content, ev.Segment, ev.Branch))
			d, err := fold.EmitDigest(seg, EmitType, json.RawMessage(payload))
			if err != nil {
				return err
			}
			n := nth[d]
			nth[d]++
			if ev.Branch {
				wantBranch = append(wantBranch, payload+"@-")
				continue
			}
			if logged[d] > n && !live {
				continue // served
			}
			stamp := ""
			if logged[d] <= n && !taint {
				stamp = d
				logged[d]++
			}
			wantSeq = append(wantSeq, appendedEmit{Payload: payload, Stamp: stamp})
		}
	}
	var gotSeq []appendedEmit
	var gotBranch []string
	for _, e := range after[run.From:run.To] {
		if e.EventType != EmitType {
			continue
		}
		a := appendedEmit{Payload: canonicalRaw(e.Payload), Stamp: stampOf(e)}
		if isBranchEmit(e) {
			gotBranch = append(gotBranch, a.String())
		} else {
			gotSeq = append(gotSeq, a)
		}
	}
	if diff := cmp.Diff(wantSeq, gotSeq); diff != "" {
		return fmt.Errorf("run %q: sequential emits appended (-model +kernel):\n%s", run.Call, diff)
	}
	sort.Strings(wantBranch)
	sort.Strings(gotBranch)
	if diff := cmp.Diff(wantBranch, gotBranch); diff != "" {
		return fmt.Errorf("run %q: parallel-branch emits appended (-model +kernel):\n%s", run.Call, diff)
	}
	return nil
}

func canonicalRaw(raw json.RawMessage) string {
	b, err := fold.CanonicalJSON(raw)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// emitKey names one (segment, content) of a program's emits.
type emitKey struct {
	Segment, Content int
	Branch           bool
}

// expectedEmits counts the program's emit statements per (segment, content) and says which are
// exact: every statement of that key is sequential and has no failing step before it in program
// order (so every run that reaches it may stamp it). The others must appear at least that often.
func expectedEmits(p Program) (count map[emitKey]int, exact map[emitKey]bool) {
	count, exact = map[emitKey]int{}, map[emitKey]bool{}
	seg, tainted := 0, false
	for _, op := range p {
		switch op.Kind {
		case OpSuspend:
			seg++
		case OpFail:
			tainted = true
		case OpEmit:
			k := emitKey{seg, op.Content, false}
			if count[k] == 0 {
				exact[k] = true
			}
			count[k]++
			exact[k] = exact[k] && !tainted
		case OpParallel:
			for _, b := range op.Branches {
				for _, leaf := range b {
					if leaf.Kind == OpEmit {
						count[emitKey{seg, leaf.Content, true}]++
					}
				}
			}
		}
	}
	return count, exact
}

// countEmits counts a log's emit envelopes per key.
func countEmits(log []spi.Envelope) map[emitKey]int {
	out := map[emitKey]int{}
	for _, e := range log {
		if e.EventType != EmitType {
			continue
		}
		var p struct {
			C, S int
			B    bool
		}
		_ = json.Unmarshal(e.Payload, &p)
		out[emitKey{p.S, p.C, p.B}]++
	}
	return out
}

// checkOnce: every emit statement of the program is in the final log; the exact ones exactly as
// many times as the program has statements of that key, times mult (2 for keys a legacy log
// re-appends once).
func checkOnce(p Program, log []spi.Envelope, mult func(emitKey) int) error {
	want, exact := expectedEmits(p)
	got := countEmits(log)
	var bad []string
	for k, n := range want {
		w := n * mult(k)
		switch {
		case exact[k] && got[k] != w:
			bad = append(bad, fmt.Sprintf("%+v: %d in the log, want exactly %d", k, got[k], w))
		case !exact[k] && got[k] < n:
			bad = append(bad, fmt.Sprintf("%+v: %d in the log, want at least %d", k, got[k], n))
		}
	}
	for k := range got {
		if want[k] == 0 {
			bad = append(bad, fmt.Sprintf("%+v: in the log but no statement emits it", k))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("emit counts: %s", strings.Join(bad, "; "))
	}
	return nil
}

// checkEffectsPerStart: each effect ran exactly once per STEP_STARTED of its step — a completed
// step is never run again, an unsettled or untyped-failed one runs again at least once.
func checkEffectsPerStart(log []spi.Envelope, effects map[string]int) error {
	starts := map[string]int{}
	completed := map[string]int64{}
	for _, e := range log {
		var p struct {
			StepID string `json:"stepId"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		switch e.EventType {
		case "STEP_STARTED":
			if at, done := completed[p.StepID]; done {
				return fmt.Errorf("step %q started again at sequence %d after it completed at %d: a completed step's effect ran again", p.StepID, e.Sequence, at)
			}
			starts[p.StepID]++
		case "STEP_COMPLETED":
			completed[p.StepID] = e.Sequence
		}
	}
	if diff := cmp.Diff(starts, effects); diff != "" {
		return fmt.Errorf("effect invocations per step (-STEP_STARTED in log +invocations):\n%s", diff)
	}
	return nil
}
