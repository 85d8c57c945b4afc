package kernel

import (
	"encoding/json"
	"fmt"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// Emit appends a flow-level event once per execution (spec §3, ADR 0102). On a re-run the n-th
// emit of a digest is served (not appended) iff the log holds more than n stamped emits of it and
// nothing in the current segment ran live; otherwise it is appended, stamped only when it exceeds
// the logged count, nothing of the run is in flight and nothing earlier ended unserved.
func (c *Context) Emit(eventType string, payload any) error {
	return c.emit("emit", eventType, payload)
}

// Stream appends one chunk of a stream channel (spec §2); served exactly as Emit.
func (c *Context) Stream(eventType string, chunk any) error {
	return c.emit("stream", eventType, chunk)
}

// UI appends a UI event (spec §2); served exactly as Emit.
func (c *Context) UI(eventType string, spec any) error { return c.emit("ui", eventType, spec) }

// EmitDecision is what the serving rule decided for one emit; the kits read it through
// Config.Trace.
type EmitDecision struct {
	Syscall   string
	EventType string
	Digest    string // "" when the payload has no JSON form
	Segment   int
	N         int64 // emits of this digest already made in this run
	Logged    int64 // stamped emits of this digest in the log at the decision
	Appended  bool
	Stamped   bool
}

func (c *Context) emit(syscall, eventType string, payload any) error {
	r := c.r
	if eventType == "" {
		return &SyscallError{Syscall: syscall, Reason: "empty event type"}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c.enter()
	chk, err := r.checkUserspace(userspace.Emit{Source: userspace.SourceFlow, EventType: eventType, Payload: payload})
	if err != nil {
		return err // refused by the userspace rules (spec §5): nothing appended
	}
	if chk.NoJSONForm {
		// spec §3: a payload with no JSON form is appended unstamped; its persisted form is null
		// (I-KERNEL-4).
		r.rt.cfg.Warn(Warning{ExecutionID: r.execID, Code: "emit-unmatchable", Clauses: []string{"S3.emit.unmatchable-unstamped"},
			Message: fmt.Sprintf("%s %s: payload has no JSON form; appended unstamped as null", syscall, eventType)})
		if r.rt.cfg.Hooks.StampUnmatchable {
			d, _ := fold.EmitDigest(r.segment, eventType, json.RawMessage("null"))
			r.mustAppend(newEvent{eventType: eventType, payload: json.RawMessage("null"), emit: true, metadata: obj("flowEmit", d)})
			return nil
		}
		r.mustAppend(newEvent{eventType: eventType, payload: json.RawMessage("null"), emit: true})
		r.trace(EmitDecision{Syscall: syscall, EventType: eventType, Segment: r.segment, Appended: true})
		return nil
	}
	raw := chk.Payload
	seg := r.segment
	if r.rt.cfg.Hooks.DigestIgnoresSegment {
		seg = 0
	}
	if r.rt.cfg.Hooks.EmitSegmentSkew {
		seg++
	}
	d, err := fold.EmitDigest(seg, eventType, raw)
	if err != nil { // the userspace copy is JSON; treat anything else as unmatchable
		r.mustAppend(newEvent{eventType: eventType, payload: json.RawMessage("null"), emit: true})
		r.trace(EmitDecision{Syscall: syscall, EventType: eventType, Segment: r.segment, Appended: true})
		return nil
	}
	counts := c.emitCounts()
	n := counts[d]
	counts[d] = n + 1
	logged := r.flowEmits[d]
	dec := EmitDecision{Syscall: syscall, EventType: eventType, Digest: d, Segment: r.segment, N: n, Logged: logged}
	appendIt, stamp := EmitRule(EmitFacts{N: n, Logged: logged, SegmentLive: c.segmentLive(), InFlight: r.inFlight > 0,
		InParallel: c.inParallel, Unserved: r.unserved, KernelFact: isKernelFact(eventType)}, r.rt.cfg.Hooks)
	if !appendIt {
		r.trace(dec) // served: the log proves this emit
		return nil
	}
	ev := newEvent{eventType: eventType, payload: raw, emit: true}
	if stamp {
		ev.metadata = obj("flowEmit", d)
		if r.rt.cfg.Hooks.StampWrongDigest {
			ev.metadata = obj("flowEmit", d+"0")
		}
	}
	r.mustAppend(ev)
	r.noteUserspaceDecision(chk)
	r.noteMetered(chk)
	if stamp && !r.readOnly {
		r.flowEmits[d]++
	}
	dec.Appended, dec.Stamped = true, stamp
	r.trace(dec)
	return nil
}

func (r *run) trace(d EmitDecision) {
	if r.rt.cfg.Trace != nil {
		r.rt.cfg.Trace(r.execID, d)
	}
}

// EmitFacts are the inputs of the emit rule of spec §3 for one emit.
type EmitFacts struct {
	N           int64 // emits of this digest already made in this run
	Logged      int64 // stamped emits of this digest in the log (including this run's)
	SegmentLive bool  // a step or decision of the current segment ran live in this run (causal view)
	InFlight    bool  // one of the run's own effects or deciders is executing
	InParallel  bool  // the emit is made inside a parallel of two or more branches (I-KERNEL-5)
	Unserved    bool  // an earlier step or decider of the run ended in an outcome a re-run does not serve
	KernelFact  bool  // the event type is a kernel fact (STEP_*, DECISION_RECORDED, EFFECT_INDOUBT, EXECUTION_*)
}

// EmitRule is the serving and stamping rule of spec §3 as a pure function: the n-th emit of a
// digest is served (not appended) iff the log holds more than n stamped copies and nothing of the
// segment ran live; an appended emit is stamped only when it exceeds the logged count, nothing of
// the run is in flight (nor racing in a parallel), nothing earlier ended unserved, and it is not a
// kernel fact. hooks are the deliberately broken variants the kits must reject.
func EmitRule(f EmitFacts, hooks Hooks) (appendIt, stamp bool) {
	if f.Logged > f.N && (!f.SegmentLive || hooks.ServeIgnoringLiveWork) {
		return false, false
	}
	stamp = (f.Logged <= f.N || hooks.StampRegardless) &&
		(hooks.StampWhileInFlight || (!f.InFlight && !f.InParallel)) &&
		(hooks.StampAfterUnserved || !f.Unserved) &&
		(!f.KernelFact || hooks.StampKernelFacts) && !hooks.NeverStamp
	return true, stamp
}
