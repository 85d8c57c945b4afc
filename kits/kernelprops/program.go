package kernelprops

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// Op kinds of a generated flow.
const (
	OpStep     = "step"     // a step whose effect succeeds
	OpFail     = "fail"     // a step whose effect always fails untyped (the flow catches it)
	OpDecide   = "decide"   // a decision
	OpEmit     = "emit"     // a flow-level emit
	OpSuspend  = "suspend"  // a park on a gate
	OpParallel = "parallel" // branches of leaf ops
)

// EmitType is the event type every generated emit uses.
const EmitType = "kit.emit"

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
	case OpEmit:
		return fmt.Sprintf("emit c%d", op.Content)
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

// emitPayload is the payload of an emit statement: its content, segment and whether it sits in
// a parallel branch — so every (segment, content) is one digest and the log says where it came from.
func emitPayload(content, segment int, branch bool) map[string]any {
	m := map[string]any{"c": content, "s": segment}
	if branch {
		m["b"] = true
	}
	return m
}

// Event is one thing flow code observed, in the order it observed it (the kit's own trace).
type Event struct {
	Kind    string // "effect", "decider", "gate", "taint", "emit"
	ID      string
	Content int
	Segment int
	Branch  bool
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

func (r *recorder) trace() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

var errUntyped = errors.New("kit: untyped failure")

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
					b := b
					branches[i] = func(c *kernel.Context) (any, error) {
						for _, leaf := range b {
							if err := leaf.run(c, rec, seg, true); err != nil {
								return nil, err
							}
						}
						return nil, nil
					}
				}
				if _, err := c.Parallel(branches...); err != nil {
					return nil, err
				}
				continue
			}
			if err := op.run(c, rec, seg, false); err != nil {
				return nil, err
			}
		}
		return "done", nil
	}
}

// run executes one leaf statement.
func (op Op) run(c *kernel.Context, rec *recorder, seg int, branch bool) error {
	switch op.Kind {
	case OpStep, OpFail:
		fail := op.Kind == OpFail
		_, err := c.Run(op.ID, func(ec *kernel.EffectContext, _ json.RawMessage) (any, error) {
			rec.add(Event{Kind: "effect", ID: op.ID, Branch: branch})
			if d := rec.latency(); d > 0 {
				time.Sleep(d)
			}
			if fail {
				return nil, errUntyped
			}
			return op.ID + "-out", nil
		}, nil)
		if err != nil {
			var sf *kernel.StepFailedError
			if !errors.As(err, &sf) {
				return err
			}
			rec.add(Event{Kind: "taint", ID: op.ID, Branch: branch})
		}
	case OpDecide:
		if _, err := c.Decide(op.ID, func(ctxT) (any, error) {
			rec.add(Event{Kind: "decider", ID: op.ID, Branch: branch})
			return op.ID + "-choice", nil
		}); err != nil {
			return err
		}
	case OpEmit:
		if err := c.Emit(EmitType, emitPayload(op.Content, seg, branch)); err != nil {
			return err
		}
		rec.add(Event{Kind: "emit", Content: op.Content, Segment: seg, Branch: branch})
	}
	return nil
}
