package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// exploreStateMembers are the clauses of execution.getState's members besides the state: the
// top-level sequence names the log's last envelope (I-WIRE-60), and status, suspendedOn and
// awaitingDriver say what the state says (I-WIRE-63).
var exploreStateMembers = []string{"I-WIRE-60", "I-WIRE-63"}

// stateProbe reads, for kernel/explore, the kernel's execution.getState after each driver action
// and at the drive's end, and keeps the first answer whose members contradict its own state and
// log: the reference kernel's getState derives each member from them, so any other answer is a
// difference from the in-process run at that point.
type stateProbe struct {
	c     *carrier.Client
	id    string
	acts  []string
	reads int
	first *explore.Mismatch
}

// observe is the drive's DriveOptions.Observe: one getState after action i.
func (p *stateProbe) observe(ctx context.Context, i int) error {
	if p.first != nil {
		return nil
	}
	at := "after the drive's end"
	if i >= 0 && i < len(p.acts) {
		at = fmt.Sprintf("after actions[%d] %s", i, p.acts[i])
	}
	var st carrier.StateResult
	if err := p.c.Call(ctx, carrier.MethodGetState, map[string]any{"executionId": p.id, "includeLog": true}, &st); err != nil {
		return nil // the drive itself meets an answer it cannot read
	}
	p.reads++
	p.first = stateMembersMismatch(st, at)
	return nil
}

// stateMembersMismatch is the first member of st that its own state and log contradict (nil: none).
func stateMembersMismatch(st carrier.StateResult, at string) *explore.Mismatch {
	var s struct {
		Status    string                     `json:"status"`
		Variables map[string]json.RawMessage `json:"variables"`
	}
	if json.Unmarshal([]byte(st.Canonical), &s) != nil {
		return nil // canonicalMismatch reports a canonical text that is not JSON
	}
	var on struct {
		On string `json:"on"`
	}
	if st.Status == fold.StatusSuspended || s.Status == fold.StatusSuspended {
		_ = json.Unmarshal(s.Variables[fold.VarSuspendedOn], &on)
	}
	m := func(member string, got, want any, clause string) *explore.Mismatch {
		return &explore.Mismatch{Op: "getState", Args: at, Got: fmt.Sprintf("%s = %v", member, got),
			Want: fmt.Sprintf("%v (what the reference's getState gives from the same state and log)", want), Clauses: withRule([]string{clause})}
	}
	switch {
	case len(st.Log) > 0 && st.Sequence != st.Log[len(st.Log)-1].Sequence:
		return m("sequence", st.Sequence, st.Log[len(st.Log)-1].Sequence, "I-WIRE-60")
	case st.Status != s.Status:
		return m("status", st.Status, s.Status, "I-WIRE-63")
	case st.SuspendedOn != on.On:
		return m("suspendedOn", fmt.Sprintf("%q", st.SuspendedOn), fmt.Sprintf("%q (state.variables._suspendedOn.on while suspended, absent otherwise)", on.On), "I-WIRE-63")
	case st.Driver != "attached" && st.Driver != "none":
		return m("driver", fmt.Sprintf("%q", st.Driver), `"attached" or "none"`, "I-WIRE-63")
	case st.AwaitingDriver != (s.Status == fold.StatusRunning && st.Driver == "none"):
		return m("awaitingDriver", st.AwaitingDriver, fmt.Sprintf("%v (status %s, driver %s: true exactly while running with no driver)",
			s.Status == fold.StatusRunning && st.Driver == "none", s.Status, st.Driver), "I-WIRE-63")
	}
	return nil
}
