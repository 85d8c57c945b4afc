package ingress

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// fuzzLog reads one envelope per line: "TYPE payload" or "!TYPE payload" (kernel-stamped).
func fuzzLog(s string) []ev {
	var out []ev
	for _, line := range strings.Split(s, "\n") {
		typ, payload, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || typ == "" {
			continue
		}
		e := ev{typ: typ, payload: payload}
		if strings.HasPrefix(typ, "!") {
			e = kev(typ[1:], payload)
		}
		out = append(out, e)
	}
	return out
}

// FuzzGate: on any log the fold accepts, FactsFrom agrees with the fold (status, entries) and
// Evaluate decides without panicking: a plan, or a typed refusal — never an InputError, never a
// plan beside an error. Run longer with `go test -fuzz FuzzGate ./reference/kernel/ingress`.
func FuzzGate(f *testing.F) {
	f.Add("EXECUTION_STARTED {\"input\":1}\nEXECUTION_SUSPENDED {\"on\":\"approve\"}", "approve", `{"ok":true}`)
	f.Add("EXECUTION_STARTED {}\nEXECUTION_RESUMED {\"x\":1}\nSTEP_STARTED {\"stepId\":\"h\",\"kind\":\"human\"}\nEXECUTION_SUSPENDED {\"on\":\"g\"}", "g", `{}`)
	f.Add("EXECUTION_STARTED {}\nEXECUTION_SUSPENDED {\"on\":\"a\",\"wakeAt\":5}\nSTEP_FAILED {\"stepId\":\"s\",\"error\":1}", "TIMER_FIRED", `null`)
	f.Add("EXECUTION_STARTED {}\n!EFFECT_INDOUBT {\"stepId\":\"p\",\"attempt\":1}\nEXECUTION_SUSPENDED {\"on\":\"__loom_indoubt__\"}", "__loom_indoubt__", `{"stepId":"p","attempt":1,"verdict":"applied"}`)
	f.Add("EXECUTION_STARTED {\"carry\":{\"inbox\":{\"__proto__\":{}}}}\nEXECUTION_SUSPENDED {\"on\":\"g\",\"waits\":[{\"waitId\":\"__proto__\"}]}", "EXECUTION_RECOVERED", `null`)
	f.Add("EXECUTION_STARTED {}\nEXECUTION_SUSPENDED {\"on\":\"a\"}\nSTEP_FAILED {\"stepId\":\"s\"}\nEXECUTION_RESUMED null\nEXECUTION_SUSPENDED {\"on\":\"__loom_diverged__\"}\nEXECUTION_RESUMED null", "a", `null`)
	f.Add("EXECUTION_STARTED {}\n!EXECUTION_RESUMED {\"waitId\":\"w\",\"answer\":1}\nEXECUTION_COMPLETED {}", "approve", `1`)
	f.Fuzz(func(t *testing.T, log, eventType, payload string) {
		events := build(fuzzLog(log)...)
		st, err := fold.Fold(fold.Current(), nil, events)
		if err != nil {
			// Seeds like testdata's "!EXECUTION_RESUMED {}}" pin that the fold refuses a log
			// (without a panic); there is then no state for the gate to agree with.
			return
		}
		for _, p := range fold.Profiles() {
			pst, err := fold.Fold(p, nil, events)
			if err != nil {
				t.Fatalf("fold as %s: %v", p, err)
			}
			pf, err := FactsFor(p, events)
			if err != nil || pf.Status != pst.Status || len(pf.Entries) != len(pst.Variables.ResumePayloads) {
				t.Fatalf("FactsFor(%s) = status %s, %d entries, %v; fold = %s, %d", p, pf.Status, len(pf.Entries), err, pst.Status, len(pst.Variables.ResumePayloads))
			}
		}
		facts, err := FactsFrom(events)
		if err != nil {
			t.Fatalf("FactsFrom on a log the fold accepts = %v", err)
		}
		if !json.Valid([]byte(payload)) || eventType == "" {
			return // no request to evaluate
		}
		for _, opts := range []Options{{}, {Authenticator: allowAll}} {
			p, err := Evaluate(context.Background(), st, facts, Request{EventType: eventType, Payload: json.RawMessage(payload)}, opts)
			var ie *InputError
			if errors.As(err, &ie) || (err != nil && len(p.Appends) > 0) || (err == nil && len(p.Appends) == 0) {
				t.Fatalf("Evaluate = %v, %v", p.Types(), err)
			}
			if err == nil {
				if _, ferr := fold.Fold(fold.Current(), &st, p.Envelopes("wf", "x", st.Sequence, 1, func(int) string { return "p" })); ferr != nil {
					t.Fatalf("the plan does not fold: %v", ferr)
				}
			}
		}
	})
}
