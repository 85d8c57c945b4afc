package ingressprops

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"
	"pgregory.net/rapid"
)

// EmitCase is one userspace emit attempt: its door, type and a payload variant whose validity the
// generator knows by construction.
type EmitCase struct {
	Source    string // flow, effect, relay
	EventType string
	Variant   string // the payload variant's name
	Payload   string // JSON
	// Valid is the generator's knowledge: the payload is well-formed for its type ("" = valid,
	// else the reason a correct checker gives).
	Valid string
	// DecisionID is the id a DECISION_RECORDED payload carries ("" when none).
	DecisionID string
	// Sneaky wraps the payload in a Go value whose fields say one id and whose JSON form another.
	Sneaky bool
}

// GoString prints the case readably.
func (c EmitCase) GoString() string {
	return fmt.Sprintf("emit{source=%s type=%s variant=%s payload=%s sneaky=%v}", c.Source, c.EventType, c.Variant, c.Payload, c.Sneaky)
}

// Recorded is the _decisions view every emit case runs against.
func Recorded() map[string]fold.Decision {
	return map[string]fold.Decision{
		"route":             {Choice: json.RawMessage(`1`)},
		"effect:tool#1:mem": {Choice: json.RawMessage(`"a"`)},
	}
}

type variant struct{ name, payload, valid string }

var meteredVariants = []variant{
	{"ok", `{"tokens":10,"costUsd":0.5,"ms":3,"memBytes":1,"wallMs":2,"netBytes":0}`, ""},
	{"zero", `{"tokens":0}`, ""},
	{"at-ceiling", `{"netBytes":1000000000000}`, ""},
	{"custom", `{"custom":{"gpu":2.5},"stepId":"tool"}`, ""},
	{"negative", `{"tokens":-1}`, "metered-invalid"},
	{"over-ceiling", `{"tokens":1000000000001}`, "metered-invalid"},
	{"overflow", `{"ms":1e400}`, "metered-invalid"},
	{"string-number", `{"ms":"3"}`, "metered-invalid"},
	{"custom-negative", `{"custom":{"gpu":-2}}`, "metered-invalid"},
	{"unknown-member", `{"dollars":1}`, "metered-invalid"},
	{"not-object", `[1]`, "metered-invalid"},
}

var quotaVariants = []variant{
	{"ok", `{"reason":"budget spent","dimension":"tokens"}`, ""},
	{"at-bound", `{"reason":"` + strings.Repeat("r", 1024) + `"}`, ""},
	{"over-bound", `{"reason":"` + strings.Repeat("r", 1025) + `"}`, "quota-reason-invalid"},
	{"empty", `{"reason":""}`, "quota-reason-invalid"},
	{"number", `{"reason":7}`, "quota-reason-invalid"},
	{"missing", `{"dimension":"tokens"}`, "quota-reason-invalid"},
}

var decisionIDs = []string{"route", "fresh", "mem", "__loom_indoubt:pay#2", "__loom_discard:h", "effect:tool#1:mem", "effect:x#1:y", ""}

// EmitCases generates userspace emits over every event type and every door.
func EmitCases() *rapid.Generator[EmitCase] {
	types := append(kernelTypes(), "progress", "ui.card", "stream.chunk")
	return rapid.Custom(func(t *rapid.T) EmitCase {
		c := EmitCase{
			Source:    rapid.SampledFrom([]string{"flow", "flow", "effect", "effect", "relay"}).Draw(t, "source"),
			EventType: rapid.SampledFrom(append(types, manifest.UserspaceEmittable()...)).Draw(t, "eventType"),
		}
		switch c.EventType {
		case manifest.ResourceMetered:
			v := rapid.SampledFrom(meteredVariants).Draw(t, "metered")
			c.Variant, c.Payload, c.Valid = v.name, v.payload, v.valid
		case manifest.QuotaExceeded:
			v := rapid.SampledFrom(quotaVariants).Draw(t, "quota")
			c.Variant, c.Payload, c.Valid = v.name, v.payload, v.valid
		case manifest.DecisionRecorded:
			c.DecisionID = rapid.SampledFrom(decisionIDs).Draw(t, "id")
			choice := rapid.SampledFrom([]string{`1`, `2`, `"a"`, ``}).Draw(t, "choice")
			extra := rapid.SampledFrom([]string{``, ``, `,"context":{"x":1}`, `,"innerSteps":[]`}).Draw(t, "extra")
			p := fmt.Sprintf(`{"id":%q`, c.DecisionID)
			if choice != "" {
				p += `,"choice":` + choice
			}
			c.Payload = p + extra + "}"
			c.Variant = "decision"
			c.Sneaky = rapid.IntRange(0, 5).Draw(t, "sneaky") == 0
		default:
			c.Payload = rapid.SampledFrom([]string{`{}`, `{"stepId":"a","output":1}`, `null`}).Draw(t, "payload")
			c.Variant = "any"
		}
		return c
	})
}

// sneakyPayload's fields name a harmless id; its JSON form is the case's payload.
type sneakyPayload struct {
	ID     string
	Choice int
	json   string
}

func (s sneakyPayload) MarshalJSON() ([]byte, error) { return []byte(s.json), nil }

// Emit turns the case into the checker's input.
func (c EmitCase) Emit() userspace.Emit {
	e := userspace.Emit{Source: userspace.Source(c.Source), EventType: c.EventType, Payload: json.RawMessage(c.Payload)}
	if c.Source == "effect" {
		e.StepID, e.Attempt = "tool", 1
	}
	if c.Sneaky {
		e.Payload = sneakyPayload{ID: "harmless", Choice: 1, json: c.Payload}
	}
	return e
}
