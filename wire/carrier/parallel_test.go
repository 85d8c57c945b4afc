package carrier

import (
	"encoding/json"
	"slices"
	"testing"

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
