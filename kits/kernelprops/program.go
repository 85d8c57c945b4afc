package kernelprops

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
)

// Program is a generated flow: the body of a flow script (loom-flowscript/2, docs/goldens.md).
// The kit has no other representation of a flow: the generator draws statements, the kernel runs
// them through the flow-script interpreter, and the model reads them back by kindOf.
type Program []flowscript.Stmt

// The kinds of statement the generator draws, each one statement shape (see stmt).
const (
	kStep        = "step"         // execute echo: succeeds
	kFail        = "fail"         // execute fail-untyped (the flow continues)
	kTyped       = "typed"        // execute fail-typed on a declared channel (served on re-run)
	kTimeout     = "timeout"      // execute slow, far past its 1 ms timeout (untyped, not served)
	kCancel      = "cancel"       // execute cancelled (STEP_CANCELLED, not served)
	kDecide      = "decide"       // decide with a choice
	kDecideThrow = "decide-throw" // decide whose decider throws (nothing recorded, not served)
	kEmit        = "emit"         // emit of a content
	kEmitNaN     = "emit-nan"     // emit whose payload holds {"$float": "NaN"}: no JSON form
	kEmitFact    = "emit-fact"    // flow-level DECISION_RECORDED emit (a kernel fact: never stamped)
	kEffectEmit  = "effect-emit"  // execute emit-from-effect (EffectContext.emit: never stamped)
	kAtMostOnce  = "at-most-once" // execute once: a crash mid-step parks in doubt
	kSuspend     = "suspend"      // a park on a gate
	kParallel    = "parallel"     // branches of leaf statements
)

// EmitType is the event type every generated emit uses.
const EmitType = "kit.emit"

// factPrefix begins the id of every flow-level DECISION_RECORDED the kit emits.
const factPrefix = "kit-"

// stmt builds the statement of a leaf kind: id names the step, decision or gate, content the
// emit's payload. Every step continues on failure, so the flow observes each outcome and goes on.
// A step's latency is set afterwards (withLatency).
func stmt(kind, id string, content int) flowscript.Stmt {
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	ex := func(tool string, in map[string]any) flowscript.Stmt {
		return flowscript.Stmt{Op: "execute", ID: id, Tool: tool, Input: raw(in), OnError: flowscript.OnErrorContinue}
	}
	switch kind {
	case kStep:
		return ex("echo", map[string]any{"value": id + "-out"})
	case kAtMostOnce:
		return ex("once", map[string]any{"value": id + "-out"})
	case kFail:
		return ex("fail-untyped", map[string]any{"message": "kit: untyped failure"})
	case kTyped:
		st := ex("fail-typed", map[string]any{"channel": "declined", "payload": map[string]any{"step": id}})
		st.Errors = []string{"declined"}
		return st
	case kTimeout: // never given a latency: the effect outlives its deadline anyway
		st := ex("slow", map[string]any{"ms": 600000})
		st.TimeoutMs = 1
		return st
	case kCancel:
		return ex("cancelled", map[string]any{})
	case kEffectEmit:
		return ex("emit-from-effect", map[string]any{"eventType": EmitType, "payload": effectEmitPayload(content), "value": id + "-out"})
	case kDecide:
		return flowscript.Stmt{Op: "decide", ID: id, Choice: raw(id + "-choice")}
	case kDecideThrow:
		return flowscript.Stmt{Op: "decide", ID: id, Fails: true, OnError: flowscript.OnErrorContinue}
	case kEmit:
		return flowscript.Stmt{Op: "emit", EventType: EmitType, Payload: raw(emitPayload(content))}
	case kEmitNaN:
		return flowscript.Stmt{Op: "emit", EventType: EmitType, Payload: raw(map[string]any{"c": content, "x": map[string]string{flowscript.FloatKey: "NaN"}})}
	case kEmitFact:
		return flowscript.Stmt{Op: "emit", EventType: manifest.DecisionRecorded, Payload: raw(factPayload(content))}
	case kSuspend:
		return flowscript.Stmt{Op: "suspend", On: id}
	}
	panic("kernelprops: no statement of kind " + kind)
}

// parallelOf builds a parallel of the given branches.
func parallelOf(branches ...[]flowscript.Stmt) flowscript.Stmt {
	return flowscript.Stmt{Op: "parallel", Branches: branches}
}

// kindOf reads a statement back as the kind stmt built it from.
func kindOf(st flowscript.Stmt) string {
	switch st.Op {
	case "execute":
		switch st.Tool {
		case "once":
			return kAtMostOnce
		case "fail-untyped":
			return kFail
		case "fail-typed":
			return kTyped
		case "slow":
			return kTimeout
		case "cancelled":
			return kCancel
		case "emit-from-effect":
			return kEffectEmit
		}
		return kStep
	case "decide":
		if st.Fails {
			return kDecideThrow
		}
		return kDecide
	case "emit":
		if st.EventType == manifest.DecisionRecorded {
			return kEmitFact
		}
		if _, found, _ := flowscript.NonJSON(st.Payload); found {
			return kEmitNaN
		}
		return kEmit
	case "suspend":
		return kSuspend
	}
	return kParallel
}

// contentOf is the content an emit statement (or an emit-from-effect step) carries.
func contentOf(st flowscript.Stmt) int {
	var p struct {
		C       *int `json:"c"`
		Choice  int  `json:"choice"`
		Payload struct {
			C int `json:"c"`
		} `json:"payload"`
	}
	switch kindOf(st) {
	case kEffectEmit:
		_ = json.Unmarshal(st.Input, &p)
		return p.Payload.C
	case kEmitFact:
		_ = json.Unmarshal(st.Payload, &p)
		return p.Choice
	case kEmit, kEmitNaN:
		_ = json.Unmarshal(st.Payload, &p)
		if p.C != nil {
			return *p.C
		}
	}
	return 0
}

// taints reports whether a statement ends in an outcome a re-run does not serve (spec §3 stamping).
func taints(st flowscript.Stmt) bool {
	switch kindOf(st) {
	case kFail, kTimeout, kCancel, kDecideThrow:
		return true
	}
	return false
}

// Script is the program as a whole flow script with the given flow id; it returns "done".
func (p Program) Script(id string) *flowscript.Script {
	return &flowscript.Script{Format: flowscript.Format, ID: id, Body: p, Return: json.RawMessage(`"done"`)}
}

// String prints the program as its flow script "prog" (Text).
func (p Program) String() string { return p.Text("prog") }

// Text prints the program as the flow script with flow id id, one statement a line: the form
// `loom-conform replay --script` reads.
func (p Program) Text(id string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"format": %q, "id": %q, "return": "done", "body": [`, flowscript.Format, id)
	for i, st := range p {
		line, _ := json.Marshal(st)
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n  ")
		b.Write(line)
	}
	b.WriteString("\n]}")
	return b.String()
}

// Gates lists the program's gates in order.
func (p Program) Gates() []string {
	var out []string
	for _, st := range p {
		if st.Op == "suspend" {
			out = append(out, st.On)
		}
	}
	return out
}

// HasParallel reports whether the program has a parallel statement.
func (p Program) HasParallel() bool {
	for _, st := range p {
		if st.Op == "parallel" {
			return true
		}
	}
	return false
}

// WithoutParallel drops the parallel statements.
func (p Program) WithoutParallel() Program {
	var out Program
	for _, st := range p {
		if st.Op != "parallel" {
			out = append(out, st)
		}
	}
	return out
}

// withoutStepFailures drops the steps that end in STEP_FAILED (untyped, typed, timed out),
// also inside parallels: before 1.21.0 a STEP_FAILED fails the execution.
func (p Program) withoutStepFailures() Program {
	keep := func(st flowscript.Stmt) bool { k := kindOf(st); return k != kFail && k != kTyped && k != kTimeout }
	var out Program
	for _, st := range p {
		if st.Op == "parallel" {
			cp := parallelOf()
			for _, b := range st.Branches {
				var nb []flowscript.Stmt
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
		if keep(st) {
			out = append(out, st)
		}
	}
	return out
}

// atMostOnceIDs lists the program's at-most-once steps (sequential only: none are drawn in
// branches, where a park is refused).
func (p Program) atMostOnceIDs() map[string]bool {
	out := map[string]bool{}
	for _, st := range p {
		if kindOf(st) == kAtMostOnce {
			out[st.ID] = true
		}
	}
	return out
}

// Insert returns the program with a new live step "z" before statement at (a code change).
func (p Program) Insert(at int) Program {
	at = max(0, min(at, len(p)))
	out := append(Program{}, p[:at]...)
	out = append(out, stmt(kStep, "z", 0))
	return append(out, p[at:]...)
}

// withStepPrefix renames every step with prefix in front of its id, so programs of several
// executions on one runtime (whose effects are shared) have distinct step ids.
func (p Program) withStepPrefix(prefix string) Program {
	out := make(Program, len(p))
	for i, st := range p {
		if st.Op == "execute" {
			st.ID = prefix + st.ID
		}
		if st.Op == "parallel" {
			st.Branches = append([][]flowscript.Stmt(nil), st.Branches...)
			for j, b := range st.Branches {
				st.Branches[j] = Program(b).withStepPrefix(prefix)
			}
		}
		out[i] = st
	}
	return out
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
