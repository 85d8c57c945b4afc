package ingress

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// ev is one envelope of a hand-written log: type, payload and optional metadata.
type ev struct {
	typ, payload, meta string
}

func kev(typ, payload string) ev { return ev{typ, payload, `{"kernel":true}`} }

// build turns a hand-written log into envelopes.
func build(evs ...ev) []spi.Envelope {
	out := make([]spi.Envelope, len(evs))
	for i, e := range evs {
		out[i] = spi.Envelope{ID: fmt.Sprintf("e%d", i), WorkflowID: "wf", ExecutionID: "x",
			EventType: e.typ, Sequence: int64(i), Timestamp: 1000 + int64(i), Payload: json.RawMessage(e.payload)}
		if e.meta != "" {
			out[i].Metadata = json.RawMessage(e.meta)
		}
	}
	return out
}

// world is a folded log with its facts.
type world struct {
	events []spi.Envelope
	st     fold.State
	facts  Facts
}

func mustWorld(t testing.TB, evs ...ev) world {
	t.Helper()
	events := build(evs...)
	st, err := fold.Fold(fold.Current(), nil, events)
	if err != nil {
		t.Fatalf("fold: %v", err)
	}
	f, err := FactsFrom(events)
	if err != nil {
		t.Fatalf("FactsFrom: %v", err)
	}
	return world{events, st, f}
}

func (w world) eval(t testing.TB, req Request, opts Options) (Plan, error) {
	t.Helper()
	return Evaluate(context.Background(), w.st, w.facts, req, opts)
}

// then appends a plan and refolds.
func (w world) then(t testing.TB, p Plan) fold.State {
	t.Helper()
	envs := p.Envelopes("wf", "x", w.st.Sequence, 5000, func(i int) string { return fmt.Sprintf("p%d", i) })
	st, err := fold.Fold(fold.Current(), &w.st, envs)
	if err != nil {
		t.Fatalf("refold: %v", err)
	}
	return st
}

// reasonOf returns the refusal reason, "validation" for a payload refusal, "" for none.
func reasonOf(err error) string {
	var r *ResumeRefusedError
	var v *ResumePayloadValidationError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &r):
		return r.Reason
	case errors.As(err, &v):
		return "validation"
	}
	return "other: " + err.Error()
}

var (
	started     = ev{"EXECUTION_STARTED", `{"input":{"n":1},"flowHash":"sha256:aa"}`, ""}
	stepA       = ev{"STEP_STARTED", `{"stepId":"A","attempt":1,"input":{}}`, ""}
	stepADone   = ev{"STEP_COMPLETED", `{"stepId":"A","output":1}`, ""}
	parkApprove = ev{"EXECUTION_SUSPENDED", `{"on":"approve"}`, ""}
	parkTimed   = ev{"EXECUTION_SUSPENDED", `{"on":"approve","timeout":60000,"wakeAt":1700000000000}`, ""}
)

// allowAll authenticates everyone as "op".
var allowAll = AuthenticatorFunc(func(context.Context, ResumeEvent) (Approval, error) { return Approval{By: "op"}, nil })

// clauseTable maps the rows of one table test to the clause ids its checks in Checks() name, so
// checks.go is the one place the clauses are written down.
type clauseTable struct {
	prefix string
	byName map[string][]string
	used   map[string]bool
}

// checkClauses collects the checks of Checks() whose Where is where and whose id has prefix; at the
// end of the test it fails for any check no row took.
func checkClauses(t *testing.T, where, prefix string) *clauseTable {
	t.Helper()
	ct := &clauseTable{prefix: prefix, byName: map[string][]string{}, used: map[string]bool{}}
	for _, c := range Checks() {
		if c.Where == where && len(c.ID) > len(prefix) && c.ID[:len(prefix)] == prefix {
			ct.byName[c.ID[len(prefix):]] = c.Clauses
		}
	}
	t.Cleanup(func() {
		for n := range ct.byName {
			if !ct.used[n] {
				t.Errorf("checks.go lists %s%s at %s, but the test has no such row", prefix, n, where)
			}
		}
	})
	return ct
}

func (ct *clauseTable) take(t *testing.T, name string) []string {
	t.Helper()
	c, ok := ct.byName[name]
	if !ok {
		t.Fatalf("row %q has no check %s%s in checks.go", name, ct.prefix, name)
	}
	ct.used[name] = true
	return c
}
