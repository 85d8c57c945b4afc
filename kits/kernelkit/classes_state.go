package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// stateClassChecks: what execution.getState returns besides the state's value (I-WIRE-60): the
// canonical text, byte for byte, and the top-level sequence.
func stateClassChecks() []kitCheck {
	return []kitCheck{
		check("kernel/state/canonical", spec.Must, "execution.getState's canonical is the canonical JSON (docs/vectors.md) of its state, byte for byte — keys sorted by UTF-16 code units, non-ASCII written as itself, shortest numbers — read after a start whose input holds keys whose UTF-16 and code point orders differ, non-ASCII text and numbers written long, after a step, a decision and a park",
			kkStateCanonical, "I-WIRE-60"),
		check("kernel/state/sequence", spec.Must, "execution.getState's top-level sequence is the sequence of the log's last envelope and the state's own sequence, after a start, a step, a park and a resume",
			kkStateSequence, "I-WIRE-60"),
	}
}

// canonicalInput is an input whose canonical JSON differs from a language's default encoding: keys
// ordered differently by UTF-16 units and by code points ("ｚ" U+FF5A sorts after "😀" U+1F600 in
// UTF-16, before it by code point), non-ASCII text, characters JSON must escape and numbers written
// in a long form.
const canonicalInput = `{"ｚ":"fullwidth","😀":"astral","é":"café ü → 😀","a\"b":"quote\\ and tab\t","<&>":"html","n":[1.50,1e21,0.1,-0,100E-2],"z":{"ｚ":1,"😀":2,"a":3}}`

// canonicalAgrees holds getState's canonical to the canonical JSON of its state, and the state's
// value to the canonical text's.
func canonicalAgrees(ctx context.Context, c *Case, id, when string) error {
	st, err := stateOf(ctx, c, id)
	if err != nil {
		return err
	}
	want, err := fold.CanonicalJSON(st.State)
	if err != nil {
		return c.Cite("I-WIRE-60").Failf(carrier.MethodGetState, id+" "+when, "state "+string(st.State)+": "+err.Error(), "a state that is one JSON value")
	}
	if st.Canonical != string(want) {
		at := 0
		for at < len(want) && at < len(st.Canonical) && want[at] == st.Canonical[at] {
			at++
		}
		return c.Cite("I-WIRE-60").Failf(carrier.MethodGetState, fmt.Sprintf("%s %s (canonical, first differing at byte %d)", id, when, at), st.Canonical, string(want)+" (the canonical JSON of state, byte for byte)")
	}
	return nil
}

func kkStateCanonical(ctx context.Context, c *Case) error {
	id := c.ExecID("canonical")
	var a carrier.Attached
	if err := c.Store.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "kit.canonical", "executionId": id, "input": json.RawMessage(canonicalInput)}, &a); err != nil {
		return c.Failf(carrier.MethodStart, id, err, "a started execution")
	}
	d := &carrier.Driver{C: c.Store, ExecutionID: id, Token: a.Driver}
	if err := canonicalAgrees(ctx, c, id, "after a start with input "+canonicalInput); err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"é😀ｚ","toolId":"echo"},"input":`+canonicalInput+`}`); err != nil {
		return err
	}
	if err := canonicalAgrees(ctx, c, id, "after a step échoing the input"); err != nil {
		return err
	}
	const pick = `{"id":"choix-é","choice":{"😀":[0.5,2e-7],"ｚ":"ü","a":null}}`
	if _, err := syscall(ctx, c, d, "decide", pick); err != nil {
		return err
	}
	if err := canonicalAgrees(ctx, c, id, "after decide "+pick); err != nil {
		return err
	}
	if err := park(ctx, c, d, "ｚ-gate"); err != nil {
		return err
	}
	return canonicalAgrees(ctx, c, id, "after a park on gate ｚ-gate")
}

func kkStateSequence(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "sequence")
	if err != nil {
		return err
	}
	agrees := func(when string) error {
		var r carrier.StateResult
		if err := c.Store.Call(ctx, carrier.MethodGetState, map[string]any{"executionId": d.ExecutionID, "includeLog": true}, &r); err != nil {
			return c.Failf(carrier.MethodGetState, d.ExecutionID, err, "the execution's state and log")
		}
		var s struct {
			Sequence int64 `json:"sequence"`
		}
		_ = json.Unmarshal(r.State, &s)
		last := int64(-1)
		if len(r.Log) > 0 {
			last = r.Log[len(r.Log)-1].Sequence
		}
		if r.Sequence != last || s.Sequence != last {
			return c.Cite("I-WIRE-60").Failf(carrier.MethodGetState, d.ExecutionID+" "+when, fmt.Sprintf("sequence %d (state.sequence %d)", r.Sequence, s.Sequence),
				fmt.Sprintf("sequence %d (the log's last envelope, %d envelopes)", last, len(r.Log)))
		}
		return nil
	}
	if err := agrees("after the start"); err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "execute", `{"task":{"id":"a","toolId":"echo"},"input":1}`); err != nil {
		return err
	}
	if err := agrees("after a step"); err != nil {
		return err
	}
	if err := park(ctx, c, d, "go"); err != nil {
		return err
	}
	if err := agrees("after a park on gate go"); err != nil {
		return err
	}
	if err := resumeAttached(ctx, c, d, "go", 1); err != nil {
		return err
	}
	return agrees("after a resume of gate go")
}
