package carrier

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/wire/clients"
)

// Reference: ADR 0026 acceptance, I-WIRE-11 — parallel flow scripts (nested branches, a failing
// branch bound by the flow, a re-drive after a gate, emits inside branches) driven over the wire
// fold byte-identically to their in-process runs (serial branches).
func TestWireParallelEqualsInProcess(t *testing.T) {
	gs, not, err := clients.Goldens(false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"emit-in-parallel", "emit-parallel-resume", "parallel-branch-fails", "parallel-nested", "parallel-results"}
	var cases []clients.Case
	for _, k := range gs {
		if slices.Contains(want, k.Name) {
			cases = append(cases, k)
		}
	}
	for _, n := range want {
		if why, ok := not[n]; ok {
			t.Errorf("wire/parallel [I-WIRE-11]: golden %s is not drivable over the wire (%s), want it driven", n, why)
		}
	}
	cases = append(cases, script(t, "parallel"))
	if len(cases) != len(want)+1 {
		t.Fatalf("wire/parallel [I-WIRE-11]: %d parallel scripts found, want %d", len(cases), len(want)+1)
	}
	wireEqualsInProcess(t, "par-", cases)
}

// Ill-formed parallel calls get typed errors naming what is wrong, and append nothing.
func TestWireParallelBadCalls(t *testing.T) {
	cl, _, _, store := served(t, Options{})
	ctx := testCtx(t)
	var a Attached
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "p", "executionId": "p1", "input": 1}, &a); err != nil {
		t.Fatal(err)
	}
	d := &Driver{C: cl, ExecutionID: "p1", Token: a.Driver}
	before, _ := store.Read(ctx, "p1")
	cases := []struct {
		name   string
		branch []int
		args   string
		code   int
	}{
		{"an end at the flow's top", nil, `{"end":{"output":1}}`, CodeInvalidParams},
		{"a call in a branch never opened", []int{0}, `{"task":{"id":"x","toolId":"echo"}}`, CodeNotRunnable},
		{"a negative branch index", []int{-1}, `{"task":{"id":"x","toolId":"echo"}}`, CodeInvalidParams},
		{"zero branches", nil, `{"branches":0}`, CodeSyscallError},
		{"a join with nothing open", nil, `{"join":true}`, CodeSyscallError},
		{"an unknown member", nil, `{"branches":1,"fn":1}`, CodeInvalidParams},
	}
	for _, c := range cases {
		name := "parallel"
		if c.name == "a call in a branch never opened" || c.name == "a negative branch index" {
			name = "execute"
		}
		_, _, err := d.SyscallAt(ctx, c.branch, name, json.RawMessage(c.args))
		ce, ok := asCall(err)
		if !ok || ce.RPC.Code != c.code {
			t.Errorf("wire/parallel [I-WIRE-11]: syscall.%s %s (%s) = %v, want error %d", name, c.args, c.name, err, c.code)
		}
	}
	after, _ := store.Read(ctx, "p1")
	if len(after) != len(before) {
		t.Errorf("wire/parallel [I-WIRE-11]: ill-formed parallel calls appended %d envelopes, want none", len(after)-len(before))
	}
}

// Reference: I-WIRE-11 — no parallel call wedges an execution: a call at a scope whose branches are
// open (the flow's top while they run, a join before every branch ended, the end of a branch whose
// own parallel is open) is refused -32025 at once, a call where the join is due -32026, and every
// later call on the execution still answers; the run then completes as if the refused calls had
// never been made.
func TestWireParallelNeverWedges(t *testing.T) {
	cl, _, _, store := served(t, Options{})
	ctx := testCtx(t)
	var a Attached
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "p", "executionId": "w1", "input": 1}, &a); err != nil {
		t.Fatal(err)
	}
	d := &Driver{C: cl, ExecutionID: "w1", Token: a.Driver}
	echo := func(id string) string { return `{"task":{"id":"` + id + `","toolId":"echo"},"input":"` + id + `"}` }
	end := func(v string) string { return `{"end":{"output":"` + v + `"}}` }
	steps := []struct {
		what   string
		branch []int
		op     string
		args   string
		code   int // 0: answered
	}{
		{"open two branches", nil, "parallel", `{"branches":2}`, 0},
		{"a call at the top while the branches run", nil, "execute", echo("top"), CodeNotRunnable},
		{"a join before any branch ended", nil, "parallel", `{"join":true}`, CodeNotRunnable},
		{"a complete while the branches run", nil, "complete", "", CodeNotRunnable},
		{"a call in branch [0]", []int{0}, "execute", echo("a"), 0},
		{"a nested open in branch [0]", []int{0}, "parallel", `{"branches":2}`, 0},
		{"the end of branch [0], its nested parallel open", []int{0}, "parallel", end("a"), CodeNotRunnable},
		{"a call in branch [0], its nested parallel open", []int{0}, "execute", echo("a2"), CodeNotRunnable},
		{"the end of [0 0]", []int{0, 0}, "parallel", end("a0"), 0},
		{"the end of [0 1]", []int{0, 1}, "parallel", end("a1"), 0},
		{"the end of branch [0], its nested join due", []int{0}, "parallel", end("a"), CodeSyscallError},
		{"the nested join", []int{0}, "parallel", `{"join":true}`, 0},
		{"the end of branch [0]", []int{0}, "parallel", end("a"), 0},
		{"a call in the ended branch [0]", []int{0}, "execute", echo("late"), CodeNotRunnable},
		{"a join before branch [1] ended", nil, "parallel", `{"join":true}`, CodeNotRunnable},
		{"the end of branch [1]", []int{1}, "parallel", end("b"), 0},
		{"a call at the top where the join is due", nil, "execute", echo("top"), CodeSyscallError},
		{"a complete where the join is due", nil, "complete", "", CodeSyscallError},
		{"an end at the top where the join is due", nil, "parallel", end("x"), CodeInvalidParams},
		{"the join", nil, "parallel", `{"join":true}`, 0},
		{"a call at the top after the join", nil, "execute", echo("after"), 0},
		{"the complete", nil, "complete", "", 0},
	}
	for _, k := range steps {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		var err error
		if k.op == "complete" {
			var res Attached
			err = cl.Call(cctx, MethodComplete, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "output": "done"}, &res)
			if err == nil && res.Status != "completed" {
				t.Errorf("wire/parallel [I-WIRE-11]: %s: status %q, want completed", k.what, res.Status)
			}
		} else {
			_, _, err = d.SyscallAt(cctx, k.branch, k.op, json.RawMessage(k.args))
		}
		cancel()
		ce, isCall := asCall(err)
		switch {
		case k.code == 0 && err != nil:
			t.Fatalf("wire/parallel [I-WIRE-11]: %s: %v, want an answer", k.what, err)
		case k.code != 0 && (!isCall || ce.RPC.Code != k.code):
			t.Fatalf("wire/parallel [I-WIRE-11]: %s = %v, want error %d at once", k.what, err, k.code)
		}
		var st StateResult
		if err := cl.Call(ctx, MethodGetState, map[string]any{"executionId": d.ExecutionID}, &st); err != nil {
			t.Fatalf("wire/parallel [I-WIRE-11]: getState after %s: %v", k.what, err)
		}
	}
	log, _ := store.Read(ctx, "w1")
	var got []string
	for _, e := range log {
		got = append(got, e.EventType)
	}
	want := []string{"EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_COMPLETED"}
	if !slices.Equal(got, want) {
		t.Errorf("wire/parallel [I-WIRE-11]: log %v, want %v (the refused calls append nothing)", got, want)
	}
}
