package userspace

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// TestKernelTypesRefused: every kernel type but the seven is refused from flow and effect emits;
// a relay refuses every kernel type. Reference: spec §5, userspace emits.
func TestKernelTypesRefused(t *testing.T) {
	okPayload := map[string]string{
		manifest.ResourceMetered:  `{"tokens":1}`,
		manifest.QuotaExceeded:    `{"reason":"budget"}`,
		manifest.DecisionRecorded: `{"id":"d","choice":1}`,
	}
	for _, et := range manifest.EventTypes() {
		for _, src := range []Source{SourceFlow, SourceEffect, SourceRelay} {
			p := okPayload[et.Name]
			if p == "" {
				p = `{}`
			}
			_, err := Check(Emit{Source: src, EventType: et.Name, Payload: json.RawMessage(p), StepID: "s", Attempt: 1}, nil)
			want := ""
			switch {
			case src == SourceRelay:
				want = ReasonRelayKernelType
			case !Emittable(et.Name):
				want = ReasonKernelType
			}
			if got := reason(err); got != want {
				t.Errorf("userspace/kernel-types [S5.emit.userspace-kernel-refused S5.emit.relay-app-only]: Check(%s, %s) = %q (%v), want %q", src, et.Name, got, err, want)
			}
		}
	}
	for _, src := range []Source{SourceFlow, SourceEffect, SourceRelay} {
		if _, err := Check(Emit{Source: src, EventType: "progress", Payload: map[string]int{"p": 1}, StepID: "s", Attempt: 1}, nil); err != nil {
			t.Errorf("userspace/kernel-types [S5.emit.relay-app-only]: Check(%s, progress) = %v, want accepted", src, err)
		}
	}
	if n := len(manifest.UserspaceEmittable()); n != 7 {
		t.Errorf("userspace/kernel-types [S5.emit.userspace-kernel-refused]: len(UserspaceEmittable()) = %d, want 7", n)
	}
}

func reason(err error) string {
	var r *EmitRefusedError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &r):
		return r.Reason
	}
	return "other: " + err.Error()
}

// TestMeteredValidation: RESOURCE_METERED fields are finite, non-negative and under the ceiling.
// Reference: spec §5, §8.
func TestMeteredValidation(t *testing.T) {
	cases := []struct {
		payload any
		want    string
	}{
		{json.RawMessage(`{"tokens":10,"costUsd":0.02,"ms":5,"memBytes":1024,"wallMs":7,"netBytes":0,"stepId":"s"}`), ""},
		{json.RawMessage(`{"custom":{"gpuSeconds":3}}`), ""},
		{json.RawMessage(`{"tokens":1e12}`), ""},
		{json.RawMessage(`{"tokens":-1}`), ReasonMeteredInvalid},
		{json.RawMessage(`{"tokens":1e13}`), ReasonMeteredInvalid},
		{json.RawMessage(`{"costUsd":1e400}`), ReasonMeteredInvalid},
		{json.RawMessage(`{"ms":"5"}`), ReasonMeteredInvalid},
		{json.RawMessage(`{"custom":{"x":-2}}`), ReasonMeteredInvalid},
		{json.RawMessage(`{"custom":{"__proto__":1}}`), ReasonMeteredInvalid},
		{json.RawMessage(`{"custom":[1]}`), ReasonMeteredInvalid},
		{json.RawMessage(`{"stepId":3}`), ReasonMeteredInvalid},
		{json.RawMessage(`{"bogus":1}`), ReasonMeteredInvalid},
		{json.RawMessage(`[1]`), ReasonMeteredInvalid},
		{map[string]float64{"tokens": math.NaN()}, ReasonNoJSONForm},
		{map[string]float64{"tokens": math.Inf(1)}, ReasonNoJSONForm},
	}
	for _, c := range cases {
		_, err := Check(Emit{Source: SourceEffect, StepID: "s", Attempt: 1, EventType: manifest.ResourceMetered, Payload: c.payload}, nil)
		if got := reason(err); got != c.want {
			t.Errorf("userspace/metered [S5.emit.metered-valid]: Check(RESOURCE_METERED %v) = %q (%v), want %q", c.payload, got, err, c.want)
		}
	}
}

// TestQuotaReasonBounded: QUOTA_EXCEEDED.reason is a bounded string. Reference: spec §5.
func TestQuotaReasonBounded(t *testing.T) {
	cases := []struct {
		payload string
		want    string
	}{
		{`{"reason":"budget spent","dimension":"tokens"}`, ""},
		{`{"reason":"` + strings.Repeat("x", MaxQuotaReason) + `"}`, ""},
		{`{"reason":"` + strings.Repeat("x", MaxQuotaReason+1) + `"}`, ReasonQuotaReasonInvalid},
		{`{"reason":""}`, ReasonQuotaReasonInvalid},
		{`{"reason":5}`, ReasonQuotaReasonInvalid},
		{`{}`, ReasonQuotaReasonInvalid},
		{`{"reason":"x","dimension":7}`, ReasonQuotaReasonInvalid},
		{`"x"`, ReasonQuotaReasonInvalid},
	}
	for _, c := range cases {
		_, err := Check(Emit{Source: SourceFlow, EventType: manifest.QuotaExceeded, Payload: json.RawMessage(c.payload)}, nil)
		if got := reason(err); got != c.want {
			t.Errorf("userspace/quota-reason [S5.emit.quota-reason-bounded]: Check(QUOTA_EXCEEDED %.40s) = %q (%v), want %q", c.payload, got, err, c.want)
		}
	}
}

// TestEffectDecisionRewritten: an effect's decision id is folded under effect:<stepId>#<attempt>:<id>,
// so it never reaches ctx.decide. Reference: spec §5.
func TestEffectDecisionRewritten(t *testing.T) {
	c, err := Check(Emit{Source: SourceEffect, StepID: "charge", Attempt: 2, EventType: manifest.DecisionRecorded,
		Payload: map[string]any{"id": "route", "choice": "fast", "context": map[string]int{"k": 1}}}, nil)
	if err != nil {
		t.Fatalf("userspace/effect-decision-rewritten [S5.emit.effect-decision-rewritten]: Check = %v, want accepted", err)
	}
	want := "effect:charge#2:route"
	if c.DecisionID != want || !c.Rewritten {
		t.Errorf("userspace/effect-decision-rewritten [S5.emit.effect-decision-rewritten]: Check().DecisionID = %q (rewritten %v), want %q", c.DecisionID, c.Rewritten, want)
	}
	// Fold the payload the runtime would append: the flow's "route" stays unrecorded.
	st := foldOne(t, manifest.DecisionRecorded, c.Payload)
	if _, ok := st.Variables.Decisions["route"]; ok {
		t.Errorf("userspace/effect-decision-rewritten [S5.emit.effect-decision-rewritten]: fold(_decisions) has %q, want only %q", "route", want)
	}
	if _, ok := st.Variables.Decisions[want]; !ok {
		t.Errorf("userspace/effect-decision-rewritten [S5.emit.effect-decision-rewritten]: fold(_decisions) lacks %q", want)
	}
	// A flow emit is not rewritten, and may not write into the effects' namespace.
	if c, err := Check(Emit{Source: SourceFlow, EventType: manifest.DecisionRecorded, Payload: json.RawMessage(`{"id":"route","choice":1}`)}, nil); err != nil || c.Rewritten || c.DecisionID != "route" {
		t.Errorf("userspace/effect-decision-rewritten [S5.emit.effect-decision-rewritten]: Check(flow route) = %+v, %v, want route unrewritten", c, err)
	}
	if _, err := Check(Emit{Source: SourceFlow, EventType: manifest.DecisionRecorded, Payload: json.RawMessage(`{"id":"effect:charge#2:route","choice":1}`)}, nil); reason(err) != ReasonReservedDecisionID {
		t.Errorf("userspace/effect-decision-rewritten [S5.emit.effect-decision-rewritten]: Check(flow effect:…) = %v, want %s", err, ReasonReservedDecisionID)
	}
}

func foldOne(t *testing.T, et string, payload json.RawMessage) fold.State {
	t.Helper()
	st, err := fold.Fold(fold.Current(), nil, envs(et, payload))
	if err != nil {
		t.Fatalf("fold: %v", err)
	}
	return st
}

// TestNoChoiceChange: no userspace DECISION_RECORDED changes an already-recorded choice; the same
// choice again is allowed. Reference: spec §5.
func TestNoChoiceChange(t *testing.T) {
	recorded := map[string]fold.Decision{
		"route":                 {Choice: json.RawMessage(`{"a":1,"b":[1,2]}`)},
		"effect:charge#1:price": {Choice: json.RawMessage(`10`)},
	}
	cases := []struct {
		e    Emit
		want string
	}{
		{Emit{Source: SourceFlow, Payload: json.RawMessage(`{"id":"route","choice":{"b":[1,2],"a":1.0}}`)}, ""},
		{Emit{Source: SourceFlow, Payload: json.RawMessage(`{"id":"route","choice":{"a":2}}`)}, ReasonChoiceChanged},
		{Emit{Source: SourceFlow, Payload: json.RawMessage(`{"id":"route","choice":null}`)}, ReasonChoiceChanged},
		{Emit{Source: SourceEffect, StepID: "charge", Attempt: 1, Payload: json.RawMessage(`{"id":"price","choice":11}`)}, ReasonChoiceChanged},
		{Emit{Source: SourceEffect, StepID: "charge", Attempt: 2, Payload: json.RawMessage(`{"id":"price","choice":11}`)}, ""},
		{Emit{Source: SourceFlow, Payload: json.RawMessage(`{"id":"fresh","choice":11}`)}, ""},
		{Emit{Source: SourceFlow, Payload: json.RawMessage(`{"id":"x"}`)}, ReasonDecisionInvalid},
		{Emit{Source: SourceFlow, Payload: json.RawMessage(`{"choice":1}`)}, ReasonDecisionInvalid},
		{Emit{Source: SourceFlow, Payload: json.RawMessage(`{"id":"x","choice":1,"innerSteps":[]}`)}, ReasonDecisionInvalid},
		{Emit{Source: SourceFlow, Payload: json.RawMessage(`{"id":"__proto__","choice":1}`)}, ReasonDecisionInvalid},
	}
	for _, c := range cases {
		c.e.EventType = manifest.DecisionRecorded
		_, err := Check(c.e, recorded)
		if got := reason(err); got != c.want {
			t.Errorf("userspace/no-choice-change [S5.emit.no-choice-change]: Check(%s %s) = %q (%v), want %q", c.e.Source, c.e.Payload, got, err, c.want)
		}
	}
}

// sneaky marshals to a reserved id while its Go field says otherwise: the check must read the
// copy that is folded.
type sneaky struct{ ID string }

func (s sneaky) MarshalJSON() ([]byte, error) {
	return []byte(`{"id":"__loom_indoubt:pay#1","choice":{"verdict":"applied"}}`), nil
}

// TestLoomIDsReserved: ids beginning __loom_ are refused, checked on the folded (plain-data) id.
// Reference: spec §5.
func TestLoomIDsReserved(t *testing.T) {
	for _, src := range []Source{SourceFlow, SourceEffect} {
		for _, p := range []any{
			json.RawMessage(`{"id":"__loom_indoubt:pay#1","choice":1}`),
			map[string]any{"id": "__loom_discard:h", "choice": 1},
			sneaky{ID: "harmless"},
		} {
			_, err := Check(Emit{Source: src, StepID: "s", Attempt: 1, EventType: manifest.DecisionRecorded, Payload: p}, nil)
			if reason(err) != ReasonReservedDecisionID {
				t.Errorf("userspace/loom-reserved [S5.decide.loom-reserved]: Check(%s, %v) = %v, want %s", src, p, err, ReasonReservedDecisionID)
			}
		}
	}
	// A repeated key: the folded (last) id is the one checked, and the appended bytes hold only it.
	if _, err := Check(Emit{Source: SourceFlow, EventType: manifest.DecisionRecorded, Payload: json.RawMessage(`{"id":"ok","id":"__loom_x","choice":1}`)}, nil); reason(err) != ReasonReservedDecisionID {
		t.Errorf("userspace/loom-reserved [S5.decide.loom-reserved]: Check(repeated id, last reserved) = %v, want %s", err, ReasonReservedDecisionID)
	}
	if c, err := Check(Emit{Source: SourceFlow, EventType: manifest.DecisionRecorded, Payload: json.RawMessage(`{"id":"__loom_x","id":"ok","choice":1}`)}, nil); err != nil || string(c.Payload) != `{"choice":1,"id":"ok"}` {
		t.Errorf("userspace/loom-reserved [S5.decide.loom-reserved]: Check(repeated id, last plain) = %s, %v, want one id in the appended copy", c.Payload, err)
	}
	// The accepted payload is the plain copy: what is checked is what is appended.
	c, err := Check(Emit{Source: SourceFlow, EventType: manifest.DecisionRecorded, Payload: json.RawMessage(` { "id" : "ok", "choice" : 1 } `)}, nil)
	if err != nil || string(c.Payload) != `{"choice":1,"id":"ok"}` {
		t.Errorf("userspace/loom-reserved [S5.decide.loom-reserved]: Check(spaced).Payload = %s, %v, want the compact plain copy", c.Payload, err)
	}
}

// TestCheckInputErrors: misuse is an *InputError, not a refusal and not a panic.
func TestCheckInputErrors(t *testing.T) {
	var ie *InputError
	for _, e := range []Emit{
		{Source: SourceFlow},
		{Source: "bogus", EventType: "x"},
		{Source: SourceEffect, EventType: "x"},
		{Source: SourceEffect, EventType: "x", StepID: "s"},
	} {
		if _, err := Check(e, nil); !errors.As(err, &ie) {
			t.Errorf("userspace/input-errors [S5.emit.userspace-kernel-refused]: Check(%+v) = %v, want *InputError", e, err)
		}
	}
	c, err := Check(Emit{Source: SourceFlow, EventType: "progress", Payload: make(chan int)}, nil)
	if err != nil || !c.NoJSONForm {
		t.Errorf("userspace/input-errors [S5.emit.userspace-kernel-refused]: Check(progress, chan) = %+v, %v, want accepted with NoJSONForm", c, err)
	}
}
