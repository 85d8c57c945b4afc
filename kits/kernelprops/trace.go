package kernelprops

import (
	"encoding/json"
	"maps"
	"sync"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// Event is one thing flow code observed, in the order it observed it (the kit's own trace).
// Inside a parallel the events of one branch are in that branch's order; "par-begin" and
// "par-end" bracket the parallel.
type Event struct {
	Kind      string // "effect", "decider", "live", "gate", "taint", "typed", "emit", "par-begin", "par-end"
	ID        string
	Content   int
	Segment   int
	Branch    int    // 1-based parallel branch index; 0 = sequential
	Branches  int    // par-begin: the number of branches
	EventType string // emits: the event type
	Payload   string // emits: the canonical JSON the kernel must persist ("null" when unmatchable)
	NoDigest  bool   // emits: the payload has no JSON form, so no digest (spec §3 unmatchable)
	Effect    bool   // emits: made through EffectContext.emit (never counted, never stamped)
	Cause     string // taint: untyped, timeout, cancelled, decider
}

// stepInfo is what the effect wrapper needs to know of a step: its branch and whether it times out.
type stepInfo struct {
	branch  int
	timeout bool
}

// recorder records the trace of the runs of one or more programs and counts effect invocations.
type recorder struct {
	mu      sync.Mutex
	events  []Event
	effects map[string]int
	steps   map[string]stepInfo
}

func newRecorder(progs ...Program) *recorder {
	r := &recorder{effects: map[string]int{}, steps: map[string]stepInfo{}}
	r.index(progs...)
	return r
}

// index learns the steps of programs.
func (r *recorder) index(progs ...Program) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range progs {
		for _, st := range p {
			r.steps[st.ID] = stepInfo{timeout: st.TimeoutMs > 0}
			for i, b := range st.Branches {
				for _, l := range b {
					r.steps[l.ID] = stepInfo{branch: i + 1, timeout: l.TimeoutMs > 0}
				}
			}
		}
	}
}

func (r *recorder) add(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	if e.Kind == "effect" {
		r.effects[e.ID]++
	}
	r.mu.Unlock()
}

func (r *recorder) trace() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

func (r *recorder) snapshotEffects() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.effects)
}

// fakes are the flow-script fakes, each recording its invocation first. A step that times out
// is settled by the kernel without waiting for its effect, whose goroutine may not have started
// yet: the flow records its live work when the timeout reaches it, here only the invocation is
// counted. An emit-from-effect records its emit once the fake has made it.
func (r *recorder) fakes() map[string]kernel.EffectDef {
	out := flowscript.Effects()
	for tool, def := range out {
		fn := def.Fn
		def.Fn = func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
			id := ec.StepID()
			r.mu.Lock()
			info := r.steps[id]
			if info.timeout {
				r.effects[id]++
			}
			r.mu.Unlock()
			if !info.timeout {
				r.add(Event{Kind: "effect", ID: id, Branch: info.branch})
			}
			v, err := fn(ec, in)
			if tool == "emit-from-effect" && err == nil {
				var p struct {
					EventType string          `json:"eventType"`
					Payload   json.RawMessage `json:"payload"`
				}
				_ = json.Unmarshal(in, &p)
				r.add(Event{Kind: "emit", Content: contentOf(flowscript.Stmt{Op: "execute", Tool: tool, Input: in}), Branch: info.branch,
					EventType: p.EventType, Payload: canonicalRaw(p.Payload), Effect: true})
			}
			return v, err
		}
		out[tool] = def
	}
	return out
}

// def is the program as the flow id of a runtime, run by the flow-script interpreter with each
// run's observations added to the trace.
func (r *recorder) def(id string, p Program) kernel.FlowDef {
	s := p.Script(id)
	return kernel.FlowDef{ID: id, Fn: func(c *kernel.Context, in json.RawMessage) (any, error) {
		o := &runObserver{rec: r}
		return flowscript.Flow(s, flowscript.Options{Observe: o.observe})(c, in)
	}}
}

// runObserver turns one run's observations into trace events; it counts the gates passed (the
// segment).
type runObserver struct {
	rec *recorder
	mu  sync.Mutex
	seg int
}

func (o *runObserver) observe(ob flowscript.Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	st, b, f := *ob.Stmt, ob.Branch, ob.Answer.Failure
	add := func(e Event) { e.Branch = b; o.rec.add(e) }
	switch {
	case ob.Kind == flowscript.ObsParallelBegin:
		add(Event{Kind: "par-begin", Segment: o.seg, Branches: len(st.Branches)})
	case ob.Kind == flowscript.ObsParallelEnd:
		add(Event{Kind: "par-end", Segment: o.seg})
	case ob.Kind == flowscript.ObsDecider:
		add(Event{Kind: "decider", ID: st.ID})
	case st.Op == "suspend":
		o.seg++
		add(Event{Kind: "gate", Segment: o.seg})
	case st.Op == "emit" && f == nil:
		e := Event{Kind: "emit", Content: contentOf(st), Segment: o.seg, EventType: st.EventType, Payload: canonicalRaw(st.Payload)}
		if kindOf(st) == kEmitNaN {
			e.Payload, e.NoDigest = "null", true
		}
		add(e)
	case f == nil:
	case f.Kind == "typed":
		add(Event{Kind: "typed", ID: st.ID})
	case f.Kind == "timeout":
		add(Event{Kind: "live", ID: st.ID})
		add(Event{Kind: "taint", ID: st.ID, Cause: "timeout"})
	case f.Kind == "untyped" || f.Kind == "cancelled" || f.Kind == "decider":
		add(Event{Kind: "taint", ID: st.ID, Cause: f.Kind})
	}
}
