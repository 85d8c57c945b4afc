package kernelprops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// Op kinds of a generated flow.
const (
	OpStep        = "step"         // a step whose effect succeeds
	OpFail        = "fail"         // a step whose effect always fails untyped (the flow catches it)
	OpTyped       = "typed"        // a step whose effect fails on a declared channel (served on re-run)
	OpTimeout     = "timeout"      // a step whose effect outlives its timeout (untyped, not served)
	OpCancel      = "cancel"       // a step whose effect is cancelled (STEP_CANCELLED, not served)
	OpDecide      = "decide"       // a decision
	OpDecideThrow = "decide-throw" // a decider that throws (nothing recorded, not served)
	OpEmit        = "emit"         // a flow-level emit
	OpEmitNaN     = "emit-nan"     // a flow-level emit whose payload has no JSON form
	OpEmitFact    = "emit-fact"    // a flow-level DECISION_RECORDED emit (a kernel fact: never stamped)
	OpEffectEmit  = "effect-emit"  // a step whose effect emits through EffectContext.emit (never stamped)
	OpAtMostOnce  = "at-most-once" // a step whose effect is at most once: a crash mid-step parks in doubt
	OpSuspend     = "suspend"      // a park on a gate
	OpParallel    = "parallel"     // branches of leaf ops
)

// EmitType is the event type every generated emit uses.
const EmitType = "kit.emit"

// factPrefix begins the id of every flow-level DECISION_RECORDED the kit emits.
const factPrefix = "kit-"

// taints reports whether an op ends in an outcome a re-run does not serve (spec §3 stamping).
func (op Op) taints() bool {
	switch op.Kind {
	case OpFail, OpTimeout, OpCancel, OpDecideThrow:
		return true
	}
	return false
}

// Op is one statement of a generated flow.
type Op struct {
	Kind     string
	ID       string // step / decision id, gate name
	Content  int    // emit content id (a duplicate reuses an earlier one)
	Branches [][]Op // parallel only
}

// Program is a generated flow: a list of statements run in order.
type Program []Op

// String prints the program on one line, e.g. `step s0; emit c1; parallel{[step p1.0] [emit c2]}; suspend g2`.
func (p Program) String() string {
	parts := make([]string, len(p))
	for i, op := range p {
		parts[i] = op.String()
	}
	return strings.Join(parts, "; ")
}

func (op Op) String() string {
	switch op.Kind {
	case OpEmit, OpEmitNaN, OpEmitFact:
		return fmt.Sprintf("%s c%d", op.Kind, op.Content)
	case OpEffectEmit:
		return fmt.Sprintf("%s %s c%d", op.Kind, op.ID, op.Content)
	case OpParallel:
		bs := make([]string, len(op.Branches))
		for i, b := range op.Branches {
			bs[i] = "[" + Program(b).String() + "]"
		}
		return "parallel{" + strings.Join(bs, " ") + "}"
	}
	return op.Kind + " " + op.ID
}

// Gates lists the program's gates in order.
func (p Program) Gates() []string {
	var out []string
	for _, op := range p {
		if op.Kind == OpSuspend {
			out = append(out, op.ID)
		}
	}
	return out
}

// HasParallel reports whether the program has a parallel statement.
func (p Program) HasParallel() bool {
	for _, op := range p {
		if op.Kind == OpParallel {
			return true
		}
	}
	return false
}

// WithoutParallel drops the parallel statements.
func (p Program) WithoutParallel() Program {
	var out Program
	for _, op := range p {
		if op.Kind != OpParallel {
			out = append(out, op)
		}
	}
	return out
}

// withoutStepFailures drops the steps that end in STEP_FAILED (untyped, typed, timed out),
// also inside parallels: before 1.21.0 a STEP_FAILED fails the execution.
func (p Program) withoutStepFailures() Program {
	keep := func(op Op) bool { return op.Kind != OpFail && op.Kind != OpTyped && op.Kind != OpTimeout }
	var out Program
	for _, op := range p {
		if op.Kind == OpParallel {
			cp := Op{Kind: OpParallel}
			for _, b := range op.Branches {
				var nb []Op
				for _, l := range b {
					if keep(l) {
						nb = append(nb, l)
					}
				}
				cp.Branches = append(cp.Branches, nb)
			}
			out = append(out, cp)
			continue
		}
		if keep(op) {
			out = append(out, op)
		}
	}
	return out
}

// atMostOnceIDs lists the program's at-most-once steps (sequential only: none are drawn in
// branches, where a park is refused).
func (p Program) atMostOnceIDs() map[string]bool {
	out := map[string]bool{}
	for _, op := range p {
		if op.Kind == OpAtMostOnce {
			out[op.ID] = true
		}
	}
	return out
}

// Insert returns the program with a new live step "z" before statement at (a code change).
func (p Program) Insert(at int) Program {
	if at < 0 {
		at = 0
	}
	if at > len(p) {
		at = len(p)
	}
	out := append(Program{}, p[:at]...)
	out = append(out, Op{Kind: OpStep, ID: "z"})
	return append(out, p[at:]...)
}

// emitPayload is the payload of an emit statement: its content only, so the same content in two
// segments (worked examples E1 and E3) or in a branch and outside it is the same payload.
func emitPayload(content int) map[string]any { return map[string]any{"c": content} }

// factPayload is the payload of a flow-level DECISION_RECORDED emit.
func factPayload(content int) map[string]any {
	return map[string]any{"id": fmt.Sprintf("%s%d", factPrefix, content), "choice": content}
}

// effectEmitPayload is the payload an effect emits through EffectContext.emit.
func effectEmitPayload(content int) map[string]any { return map[string]any{"c": content, "fx": true} }

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

// recorder records the trace of one run and counts effect invocations.
type recorder struct {
	mu      sync.Mutex
	events  []Event
	effects map[string]int
	latency func() time.Duration
}

func (r *recorder) add(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	if e.Kind == "effect" {
		r.effects[e.ID]++
	}
	r.mu.Unlock()
}

// invoked counts an effect invocation that is not part of the trace.
func (r *recorder) invoked(id string) {
	r.mu.Lock()
	r.effects[id]++
	r.mu.Unlock()
}

func (r *recorder) trace() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

var (
	errUntyped = errors.New("kit: untyped failure")
	errThrow   = errors.New("kit: decider throws")
)

// flow interprets a program as flow code, recording what it observes.
func (p Program) flow(rec *recorder) kernel.Flow {
	return func(c *kernel.Context, _ json.RawMessage) (any, error) {
		seg := 0
		for _, op := range p {
			if op.Kind == OpSuspend {
				if _, err := c.Suspend(kernel.SuspendConfig{On: op.ID}); err != nil {
					return nil, err
				}
				seg++
				rec.add(Event{Kind: "gate", Segment: seg})
				continue
			}
			if op.Kind == OpParallel {
				branches := make([]kernel.Branch, len(op.Branches))
				for i, b := range op.Branches {
					branches[i] = func(c *kernel.Context) (any, error) {
						for _, leaf := range b {
							if err := leaf.run(c, rec, seg, i+1); err != nil {
								return nil, err
							}
						}
						return nil, nil
					}
				}
				rec.add(Event{Kind: "par-begin", Segment: seg, Branches: len(branches)})
				if _, err := c.Parallel(branches...); err != nil {
					return nil, err
				}
				rec.add(Event{Kind: "par-end", Segment: seg})
				continue
			}
			if err := op.run(c, rec, seg, 0); err != nil {
				return nil, err
			}
		}
		return "done", nil
	}
}

// task builds the step of a step-shaped op: its effect records the invocation and ends as the
// op kind says.
func (op Op) task(rec *recorder, branch int) kernel.Task {
	t := kernel.Task{ID: op.ID}
	fx := func(ec *kernel.EffectContext) (any, error) {
		switch op.Kind {
		case OpFail:
			return nil, errUntyped
		case OpTyped:
			return nil, kernel.Fail("declined", map[string]any{"step": op.ID})
		case OpTimeout:
			<-ec.Context().Done() // outlive the step's deadline; settle as soon as it passes
			return nil, ec.Context().Err()
		case OpCancel:
			return nil, context.Canceled
		case OpEffectEmit:
			if err := ec.Emit(EmitType, effectEmitPayload(op.Content)); err != nil {
				return nil, err
			}
			rec.add(Event{Kind: "emit", Content: op.Content, Branch: branch, EventType: EmitType,
				Payload: canonical(effectEmitPayload(op.Content)), Effect: true})
		}
		return op.ID + "-out", nil
	}
	switch op.Kind {
	case OpTyped:
		t.Errors = map[string]kernel.PayloadSchema{"declined": kernel.AnyPayload}
	case OpTimeout:
		t.Timeout = time.Millisecond
	case OpAtMostOnce:
		t.AtMostOnce = true
	}
	t.Fn = func(ec *kernel.EffectContext, _ json.RawMessage) (any, error) {
		if op.Kind == OpTimeout {
			// the kernel may settle the step before this goroutine starts: the flow records the
			// live work when the timeout reaches it, here only the invocation is counted
			rec.invoked(op.ID)
			return fx(ec)
		}
		rec.add(Event{Kind: "effect", ID: op.ID, Branch: branch})
		if d := rec.latency(); d > 0 {
			time.Sleep(d)
		}
		return fx(ec)
	}
	return t
}

// run executes one leaf statement (branch = 0 outside a parallel).
func (op Op) run(c *kernel.Context, rec *recorder, seg, branch int) error {
	switch op.Kind {
	case OpStep, OpFail, OpTyped, OpTimeout, OpCancel, OpEffectEmit, OpAtMostOnce:
		_, err := c.Execute(op.task(rec, branch), nil)
		var sf *kernel.StepFailedError
		var sc *kernel.StepCancelledError
		var tf *kernel.TypedFailure
		switch {
		case err == nil:
		case errors.As(err, &tf):
			rec.add(Event{Kind: "typed", ID: op.ID, Branch: branch})
		case errors.As(err, &sf):
			cause := "untyped"
			if sf.Timeout {
				cause = "timeout"
				rec.add(Event{Kind: "live", ID: op.ID, Branch: branch})
			}
			rec.add(Event{Kind: "taint", ID: op.ID, Branch: branch, Cause: cause})
		case errors.As(err, &sc):
			rec.add(Event{Kind: "taint", ID: op.ID, Branch: branch, Cause: "cancelled"})
		default:
			return err
		}
	case OpDecide, OpDecideThrow:
		throw := op.Kind == OpDecideThrow
		_, err := c.Decide(op.ID, func(ctxT) (any, error) {
			rec.add(Event{Kind: "decider", ID: op.ID, Branch: branch})
			if throw {
				return nil, errThrow
			}
			return op.ID + "-choice", nil
		})
		var de *kernel.DeciderError
		switch {
		case err == nil:
		case errors.As(err, &de):
			rec.add(Event{Kind: "taint", ID: op.ID, Branch: branch, Cause: "decider"})
		default:
			return err
		}
	case OpEmit:
		pl := emitPayload(op.Content)
		if err := c.Emit(EmitType, pl); err != nil {
			return err
		}
		rec.add(Event{Kind: "emit", Content: op.Content, Segment: seg, Branch: branch, EventType: EmitType, Payload: canonical(pl)})
	case OpEmitNaN:
		if err := c.Emit(EmitType, map[string]any{"c": op.Content, "x": math.NaN()}); err != nil {
			return err
		}
		rec.add(Event{Kind: "emit", Content: op.Content, Segment: seg, Branch: branch, EventType: EmitType, Payload: "null", NoDigest: true})
	case OpEmitFact:
		pl := factPayload(op.Content)
		if err := c.Emit(manifest.DecisionRecorded, pl); err != nil {
			return err
		}
		rec.add(Event{Kind: "emit", Content: op.Content, Segment: seg, Branch: branch, EventType: manifest.DecisionRecorded, Payload: canonical(pl)})
	}
	return nil
}
