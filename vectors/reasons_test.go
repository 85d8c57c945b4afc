package vectors

import (
	"strings"
	"testing"
)

// Reference: I-VECTOR-9 — the loader refuses a fold vector whose reason says a reserved variable
// is absent, empty or seeded when its expected state says otherwise, and accepts reasons whose
// claims hold. The first two cases are the reasons two carry vectors once had.
func TestReasonsNotContradicted(t *testing.T) {
	const check = "vectors/reason-not-contradicted"
	state := func(vars string) string {
		return `{"frames":{},"sequence":0,"startedAt":1000,"status":"running","updatedAt":1000,"variables":` + vars + `}`
	}
	for _, c := range []struct {
		reason, state string
		refused       bool
	}{
		{"resources {} seeds nothing (no _resources), inbox {} and quarantined {} seed an empty _inbox and nothing", state(`{"_input":null}`), true},
		{"a carry's resources replace the six dimensions as a group and custom on its own; resources {} seeds nothing, inbox {} seeds {}", state(`{"_input":null,"_resources":{"wallMs":9}}`), true},
		{"empty carry members replace nothing: resources {}, inbox {} and quarantined {} leave no _resources, no _inbox and no _quarantined", state(`{"_input":null}`), false},
		{"an unstamped (pre-1.19.0) log folds no _flowEmits at all", state(`{"_flowEmits":{"d":1}}`), true},
		{"a valid carry seeds _resources and _inbox in their own folded shapes", state(`{"_resources":{"tokens":1}}`), true},
		{"a valid carry seeds _resources and _inbox in their own folded shapes", state(`{"_resources":{"tokens":1},"_inbox":{}}`), false},
		{"waits: [] and a waits list of only invalid entries fold to _waits {}, not to an absent key", state(`{"_waits":{}}`), false},
		{"waits: [] folds to _waits {}", state(`{"_waits":{"w":{}}}`), true},
		{"an EXECUTION_STARTED without input leaves _input absent, not null", state(`{"_input":null}`), true},
		{"a queue emptied by a discard disappears, and with it the empty _quarantined", state(`{}`), false},
		{"no __proto__ and no _notReserved are read as claims", state(`{"__proto__x":1}`), false},
	} {
		v := `{"id":"fold/x","kind":"fold","reason":` + quote(c.reason) + `,"clauses":["I-FOLD-26"],"profile":"1.26.0","events":[],"expect":{"state":` + c.state + `}}`
		_, err := Parse([]byte(v), "x.json")
		switch {
		case c.refused && (err == nil || !strings.Contains(err.Error(), "I-VECTOR-9")):
			t.Errorf("%s [I-VECTOR-9]: Parse(reason %q, state %s) = %v, want a refusal naming I-VECTOR-9", check, c.reason, c.state, err)
		case !c.refused && err != nil:
			t.Errorf("%s [I-VECTOR-9]: Parse(reason %q, state %s) = %v, want nil", check, c.reason, c.state, err)
		}
	}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
