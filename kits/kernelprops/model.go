package kernelprops

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"

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

// isModelEmit reports whether an envelope is an emit the model predicts: a kit emit (flow or
// effect) or a flow-level DECISION_RECORDED of the kit.
func isModelEmit(e spi.Envelope) bool {
	switch e.EventType {
	case EmitType:
		return true
	case manifest.DecisionRecorded:
		var p struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		return strings.HasPrefix(p.ID, factPrefix)
	}
	return false
}

// Tally counts the paths of the rule of spec §3 that one or more runs took, as the model saw them.
type Tally struct {
	Emits              int // emits decided by the rule (flow-level, with a digest)
	Served             int // not appended: the log proves it
	ServedInBranch     int // ... inside a parallel branch
	AppendedLive       int // the log holds more stamped copies, but the segment ran live work
	Stamped            int
	UnstampedParallel  int // exceeds the logged count, but racing siblings in a parallel (I-KERNEL-5)
	UnstampedUnserved  int // exceeds the logged count, but an earlier outcome is not served
	UnstampedKernel    int // a kernel fact (flow-level DECISION_RECORDED)
	Unmatchable        int // no JSON form: appended unstamped
	EffectEmits        int // EffectContext.emit: appended unstamped
	Typed              int // a typed failure seen by the flow (live or served)
	Taints             map[string]int
	RunsWithBranchCopy int // runs where one branch's emit of a digest met another's (finding-1 shape)
}

func (t *Tally) add(o Tally) {
	t.Emits += o.Emits
	t.Served += o.Served
	t.ServedInBranch += o.ServedInBranch
	t.AppendedLive += o.AppendedLive
	t.Stamped += o.Stamped
	t.UnstampedParallel += o.UnstampedParallel
	t.UnstampedUnserved += o.UnstampedUnserved
	t.UnstampedKernel += o.UnstampedKernel
	t.Unmatchable += o.Unmatchable
	t.EffectEmits += o.EffectEmits
	t.Typed += o.Typed
	t.RunsWithBranchCopy += o.RunsWithBranchCopy
	if t.Taints == nil {
		t.Taints = map[string]int{}
	}
	for k, v := range o.Taints {
		t.Taints[k] += v
	}
}

// modelBlock is what one sequential statement or one parallel appends, as the model predicts it:
// a sequential block in order, a parallel block as a multiset (the order of appends inside a
// parallel is timing).
type modelBlock struct {
	parallel bool
	emits    []string
}

// modelState is the serving state of spec §3 the model keeps while it walks a run's trace.
type modelState struct {
	logged map[string]int // stamped copies per digest in the log (and this run's stamps)
	nth    map[string]int // emits per digest made so far (the view of the current context)
	live   bool           // live work in the segment (the view of the current context)
	taint  bool
	seg    int
	tally  Tally
}

// decide applies the rule to one emit event and returns the appended envelope ("" = served).
func (m *modelState) decide(ev Event, nth map[string]int, live, inParallel bool) (string, error) {
	if ev.Effect {
		m.tally.EffectEmits++
		return ev.Payload + "@-", nil
	}
	if ev.NoDigest {
		m.tally.Unmatchable++
		return "null@-", nil
	}
	d, err := fold.EmitDigest(m.seg, ev.EventType, json.RawMessage(ev.Payload))
	if err != nil {
		return "", err
	}
	m.tally.Emits++
	n := nth[d]
	nth[d]++
	if m.logged[d] > n {
		if !live {
			m.tally.Served++
			if inParallel {
				m.tally.ServedInBranch++
			}
			return "", nil
		}
		m.tally.AppendedLive++
	}
	stamp := ""
	switch {
	case m.logged[d] > n: // appended because of live work: never exceeds the count
	case ev.EventType != EmitType:
		m.tally.UnstampedKernel++
	case inParallel:
		m.tally.UnstampedParallel++
	case m.taint:
		m.tally.UnstampedUnserved++
	default:
		stamp = d
		m.logged[d]++
		m.tally.Stamped++
	}
	if stamp == "" {
		return ev.Payload + "@-", nil
	}
	return ev.Payload + "@" + stamp, nil
}

// observe applies a non-emit event to the state.
func (m *modelState) observe(ev Event, live *bool) {
	switch ev.Kind {
	case "effect", "decider", "live":
		*live = true
	case "taint":
		m.taint = true
		m.tally.Taints[ev.Cause]++
	case "typed":
		m.tally.Typed++
	}
}

// predictRun computes what a run appends from what its flow code observed, by the serving and
// stamping rules of spec §3 (timing-free: it reads only the causal order of the flow's own
// statements and which effects and deciders ran live):
//
//   - the n-th emit of digest d is served iff the log holds more than n stamped emits of d and no
//     step or decision of the current segment ran live before it;
//   - an appended emit is stamped iff it exceeds the logged count, it is not in a parallel of two
//     or more branches (I-KERNEL-5), no earlier step or decider of the run ended unserved and it
//     is not a kernel fact; an unmatchable payload and an EffectContext.emit are never stamped;
//   - inside a parallel branch, n and the live test read the branch's causal past: the count and
//     the live flag when the parallel began plus the branch's own emits and live work; after the
//     join the count is the start count plus every branch's emits (I-KERNEL-18).
func predictRun(run RunRecord, before []spi.Envelope) ([]modelBlock, Tally, error) {
	m := &modelState{logged: map[string]int{}, nth: map[string]int{}, tally: Tally{Taints: map[string]int{}}}
	for _, e := range before {
		if s := stampOf(e); s != "" {
			m.logged[s]++
		}
	}
	var blocks []modelBlock
	tr := run.Trace
	for i := 0; i < len(tr); i++ {
		ev := tr[i]
		switch ev.Kind {
		case "gate":
			m.seg, m.live = ev.Segment, false
		case "emit":
			got, err := m.decide(ev, m.nth, m.live, false)
			if err != nil {
				return nil, m.tally, err
			}
			if got != "" {
				blocks = append(blocks, modelBlock{emits: []string{got}})
			}
		case "par-begin":
			j := i + 1
			for j < len(tr) && tr[j].Kind != "par-end" {
				j++
			}
			b, err := m.parallel(ev.Branches, tr[i+1:j])
			if err != nil {
				return nil, m.tally, err
			}
			blocks = append(blocks, b)
			i = j
		default:
			m.observe(ev, &m.live)
		}
	}
	return blocks, m.tally, nil
}

// parallel predicts one parallel from its branches' events (each branch in its own order).
func (m *modelState) parallel(branches int, evs []Event) (modelBlock, error) {
	byBranch := map[int][]Event{}
	var idx []int
	for _, ev := range evs {
		if _, ok := byBranch[ev.Branch]; !ok {
			idx = append(idx, ev.Branch)
		}
		byBranch[ev.Branch] = append(byBranch[ev.Branch], ev)
	}
	sort.Ints(idx)
	start := maps.Clone(m.nth)
	block := modelBlock{parallel: true}
	anyLive := m.live
	emitted := map[string]int{} // branches emitting each digest-bearing payload
	for _, b := range idx {
		nth, live := maps.Clone(start), m.live
		seen := map[string]bool{}
		for _, ev := range byBranch[b] {
			if ev.Kind != "emit" {
				m.observe(ev, &live)
				continue
			}
			if !ev.Effect && !ev.NoDigest && !seen[ev.Payload] {
				seen[ev.Payload] = true
				emitted[ev.EventType+ev.Payload]++
			}
			got, err := m.decide(ev, nth, live, branches > 1)
			if err != nil {
				return block, err
			}
			if got != "" {
				block.emits = append(block.emits, got)
			}
		}
		anyLive = anyLive || live
		for d, n := range nth {
			m.nth[d] += n - start[d]
		}
	}
	for _, n := range emitted {
		if n > 1 {
			m.tally.RunsWithBranchCopy = 1
		}
	}
	m.live = anyLive
	sort.Strings(block.emits)
	return block, nil
}

// checkRunModel is the differential check of one run: the emits it appended against predictRun.
func checkRunModel(run RunRecord, before, after []spi.Envelope) (Tally, error) {
	blocks, tally, err := predictRun(run, before)
	if err != nil {
		return tally, err
	}
	var got []string
	for _, e := range after[run.From:run.To] {
		if isModelEmit(e) {
			got = append(got, appendedEmit{Payload: canonicalRaw(e.Payload), Stamp: stampOf(e)}.String())
		}
	}
	var want []string
	var gotAligned []string
	k := 0
	for _, b := range blocks {
		want = append(want, b.emits...)
		end := min(k+len(b.emits), len(got))
		seg := append([]string(nil), got[k:end]...)
		if b.parallel {
			sort.Strings(seg)
		}
		gotAligned = append(gotAligned, seg...)
		k = end
	}
	gotAligned = append(gotAligned, got[k:]...)
	if diff := cmp.Diff(want, gotAligned); diff != "" {
		return tally, fmt.Errorf("run %q: emits appended (-model +kernel; a parallel's appends compared as a set):\n%s", run.Call, diff)
	}
	return tally, nil
}

func canonicalRaw(raw json.RawMessage) string {
	b, err := fold.CanonicalJSON(raw)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// emitKey names one kind of emit the kit makes: a flow emit of a content ("emit"), an
// EffectContext.emit ("fx"), an unmatchable payload ("null") or a flow-level DECISION_RECORDED
// ("fact"). Payloads carry no segment, so one key spans every segment and branch it occurs in.
type emitKey struct {
	Kind    string
	Content int
}

// expectedEmits counts the program's emit statements per key (each weighted by mult of its
// segment) and says which keys are exact: every statement of the key is a sequential flow emit
// with no outcome a re-run does not serve before it in program order, so every run that reaches
// it may stamp it. The others (branch copies, kernel facts, effect emits, unmatchable payloads)
// must appear at least once per statement.
func expectedEmits(p Program, mult func(segment int) int) (want, atLeast map[emitKey]int, exact map[emitKey]bool) {
	want, atLeast, exact = map[emitKey]int{}, map[emitKey]int{}, map[emitKey]bool{}
	seg, tainted := 0, false
	note := func(k emitKey, exactOne bool) {
		if atLeast[k] == 0 {
			exact[k] = true
		}
		atLeast[k]++
		want[k] += mult(seg)
		exact[k] = exact[k] && exactOne
	}
	leaf := func(st flowscript.Stmt, branch bool) {
		switch kindOf(st) {
		case kEmit:
			note(emitKey{"emit", contentOf(st)}, !branch && !tainted)
		case kEmitNaN:
			note(emitKey{"null", 0}, false)
		case kEmitFact:
			note(emitKey{"fact", contentOf(st)}, false)
		case kEffectEmit:
			note(emitKey{"fx", contentOf(st)}, false)
		}
	}
	for _, st := range p {
		switch st.Op {
		case "suspend":
			seg++
		case "parallel":
			for _, b := range st.Branches {
				for _, l := range b {
					leaf(l, true)
				}
			}
			for _, b := range st.Branches {
				for _, l := range b {
					tainted = tainted || taints(l)
				}
			}
		default:
			leaf(st, false)
			tainted = tainted || taints(st)
		}
	}
	return want, atLeast, exact
}

// countEmits counts a log's emits per key.
func countEmits(log []spi.Envelope) map[emitKey]int {
	out := map[emitKey]int{}
	for _, e := range log {
		if !isModelEmit(e) {
			continue
		}
		var p struct {
			C      int  `json:"c"`
			FX     bool `json:"fx"`
			Choice int  `json:"choice"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		switch {
		case e.EventType == manifest.DecisionRecorded:
			out[emitKey{"fact", p.Choice}]++
		case string(e.Payload) == "null":
			out[emitKey{"null", 0}]++
		case p.FX:
			out[emitKey{"fx", p.C}]++
		default:
			out[emitKey{"emit", p.C}]++
		}
	}
	return out
}

// checkOnce: every emit statement of the program is in the final log; the exact keys exactly as
// many times as the program has statements of that key, each times mult of its segment (2 for
// the segments a legacy log re-appends once).
func checkOnce(p Program, log []spi.Envelope, mult func(segment int) int) error {
	want, atLeast, exact := expectedEmits(p, mult)
	got := countEmits(log)
	var bad []string
	for k, n := range atLeast {
		switch {
		case exact[k] && got[k] != want[k]:
			bad = append(bad, fmt.Sprintf("%+v: %d in the log, want exactly %d", k, got[k], want[k]))
		case !exact[k] && got[k] < n:
			bad = append(bad, fmt.Sprintf("%+v: %d in the log, want at least %d", k, got[k], n))
		}
	}
	for k := range got {
		if atLeast[k] == 0 {
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
// step is never run again, an unsettled or untyped-failed one runs again at least once. A step
// that timed out is settled by the kernel without waiting for its effect, whose goroutine may not
// have started yet, so for it the invocations are at most the starts.
func checkEffectsPerStart(log []spi.Envelope, effects map[string]int) error {
	starts := map[string]int{}
	completed := map[string]int64{}
	timedOut := map[string]bool{}
	for _, e := range log {
		var p struct {
			StepID string `json:"stepId"`
			Error  struct {
				Timeout bool `json:"timeout"`
			} `json:"error"`
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
		case "STEP_FAILED":
			timedOut[p.StepID] = timedOut[p.StepID] || p.Error.Timeout
		}
	}
	got := maps.Clone(effects)
	for id := range timedOut {
		if got[id] > starts[id] {
			return fmt.Errorf("step %q timed out: effect invoked %d times for %d starts", id, got[id], starts[id])
		}
		got[id] = starts[id]
	}
	maps.DeleteFunc(got, func(_ string, n int) bool { return n == 0 })
	if diff := cmp.Diff(starts, got); diff != "" {
		return fmt.Errorf("effect invocations per step (-STEP_STARTED in log +invocations):\n%s", diff)
	}
	return nil
}
