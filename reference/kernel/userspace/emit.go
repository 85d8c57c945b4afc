package userspace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// Source says which userspace door an emit came through.
type Source string

const (
	// SourceFlow: ctx.emit, ctx.stream or ctx.ui in flow code.
	SourceFlow Source = "flow"
	// SourceEffect: EffectContext.emit inside an effect; StepID and Attempt name the effect's step.
	SourceEffect Source = "effect"
	// SourceRelay: an isolated tool's relay, which forwards application event types only.
	SourceRelay Source = "relay"
)

// Bounds the rules enforce (docs/interpretations.md I-KERNEL-61, I-KERNEL-62).
const (
	// MaxMetered is the sanity ceiling of one RESOURCE_METERED field: 10^12 per dimension and
	// emit, low enough that 9 000 maximal emits still sum exactly in the fold's float64 totals.
	MaxMetered = 1e12
	// MaxQuotaReason bounds QUOTA_EXCEEDED.reason, in bytes of UTF-8.
	MaxQuotaReason = 1024
	// MaxDimensionName bounds QUOTA_EXCEEDED.dimension and a custom metered dimension's name.
	MaxDimensionName = 64
	// ReservedDecisionPrefix starts the decision ids reserved for the kernel's own records.
	ReservedDecisionPrefix = "__loom_"
)

// Emit is one userspace emit as the caller made it.
type Emit struct {
	Source    Source
	EventType string
	// Payload is the caller's value; it is copied to plain data (its JSON form) before any check,
	// and that copy is what the rules read and what must be appended.
	Payload any
	// StepID and Attempt name the emitting effect's step (SourceEffect only).
	StepID  string
	Attempt int
}

// Checked is an accepted emit: the plain-data payload to append (decision ids already rewritten).
type Checked struct {
	EventType string
	// Payload is the JSON form of the payload, the exact bytes to append. Nil when NoJSONForm.
	Payload json.RawMessage
	// NoJSONForm is true for an application event whose payload has no JSON form (spec §3: it is
	// appended unstamped); a kernel type without a JSON form is refused instead.
	NoJSONForm bool
	// DecisionID is the id that will be folded, for DECISION_RECORDED.
	DecisionID string
	// Rewritten is true when an effect's decision id was moved into its step's namespace.
	Rewritten bool
}

// Check applies the userspace emit rules of spec §5. recorded is the execution's folded
// _decisions (fold.State.Variables.Decisions, including this run's records). It returns the
// checked emit or an *EmitRefusedError (nothing may be appended) or an *InputError.
func Check(e Emit, recorded map[string]fold.Decision) (Checked, error) {
	if e.EventType == "" {
		return Checked{}, &InputError{Field: "eventType", Detail: "required"}
	}
	switch e.Source {
	case SourceFlow, SourceRelay:
	case SourceEffect:
		if e.StepID == "" || e.Attempt < 1 {
			return Checked{}, &InputError{Field: "stepId/attempt", Detail: "an effect emit names its step and attempt (>= 1)"}
		}
	default:
		return Checked{}, &InputError{Field: "source", Detail: fmt.Sprintf("unknown source %q", e.Source)}
	}
	et := e.EventType
	kernel := manifest.IsKernelEventType(et)
	if kernel && e.Source == SourceRelay {
		return Checked{}, refuse(et, ReasonRelayKernelType, "an isolated tool's relay forwards application event types only")
	}
	if kernel && !Emittable(et) {
		return Checked{}, refuse(et, ReasonKernelType, "flow code may not write kernel state the fold trusts")
	}
	plain, err := plainJSON(e.Payload)
	if err == nil && kernel {
		plain, err = plainData(plain)
	}
	if err != nil {
		if !kernel {
			return Checked{EventType: et, NoJSONForm: true}, nil
		}
		return Checked{}, refuse(et, ReasonNoJSONForm, err.Error())
	}
	out := Checked{EventType: et, Payload: plain}
	switch et {
	case manifest.ResourceMetered:
		err = checkMetered(plain)
	case manifest.QuotaExceeded:
		err = checkQuota(plain)
	case manifest.DecisionRecorded:
		out, err = checkDecision(e, out, recorded)
	}
	if err != nil {
		return Checked{}, err
	}
	return out, nil
}

// Emittable reports whether a userspace emit (flow or effect) may carry eventType: every
// application type and the seven kernel types of manifest.UserspaceEmittable.
func Emittable(eventType string) bool {
	return !manifest.IsKernelEventType(eventType) || slices.Contains(manifest.UserspaceEmittable(), eventType)
}

// plainJSON copies v to plain data: its JSON form, compacted. A json.RawMessage or []byte holding
// JSON text is taken as that text.
func plainJSON(v any) (json.RawMessage, error) {
	var b []byte
	var err error
	switch x := v.(type) {
	case json.RawMessage:
		b = x
		if len(bytes.TrimSpace(b)) == 0 {
			b = []byte("null")
		}
	default:
		b, err = json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("payload has no JSON form: %v", err)
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, fmt.Errorf("payload has no JSON form: %v", err)
	}
	return buf.Bytes(), nil
}

// plainData re-encodes a JSON text through plain data (objects, arrays, strings, numbers kept as
// their decimal text): a repeated object key keeps its last value, as the fold reads it, so the
// bytes appended hold exactly the members that were checked. Used for the kernel types, which fold.
func plainData(raw json.RawMessage) (json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("payload has no JSON form: %v", err)
	}
	return encodePlain(v)
}

// encodePlain encodes v with sorted object keys and without HTML escaping.
func encodePlain(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("payload has no JSON form: %v", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func checkMetered(plain json.RawMessage) error {
	et := manifest.ResourceMetered
	m, ok := object(plain)
	if !ok {
		return refuse(et, ReasonMeteredInvalid, "the payload is not an object")
	}
	for k, v := range m {
		switch {
		case k == "stepId":
			if _, ok := str(v); !ok {
				return refuse(et, ReasonMeteredInvalid, "stepId is not a string")
			}
		case slices.Contains(fold.ResourceDimensions(), k):
			if err := meteredValue(k, v); err != nil {
				return err
			}
		case k == "custom":
			c, ok := object(v)
			if !ok {
				return refuse(et, ReasonMeteredInvalid, "custom is not an object")
			}
			for name, cv := range c {
				if name == "" || name == "__proto__" || len(name) > MaxDimensionName {
					return refuse(et, ReasonMeteredInvalid, fmt.Sprintf("custom dimension name %q is empty, reserved or longer than %d bytes", name, MaxDimensionName))
				}
				if err := meteredValue("custom."+name, cv); err != nil {
					return err
				}
			}
		default:
			return refuse(et, ReasonMeteredInvalid, fmt.Sprintf("unknown member %q", k))
		}
	}
	return nil
}

func meteredValue(name string, raw json.RawMessage) error {
	et := manifest.ResourceMetered
	var n json.Number
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || (t[0] != '-' && (t[0] < '0' || t[0] > '9')) || json.Unmarshal(t, &n) != nil {
		return refuse(et, ReasonMeteredInvalid, name+" is not a number")
	}
	f, err := strconv.ParseFloat(string(n), 64)
	switch {
	case err != nil || math.IsInf(f, 0) || math.IsNaN(f):
		return refuse(et, ReasonMeteredInvalid, name+" is not finite")
	case f < 0:
		return refuse(et, ReasonMeteredInvalid, name+" is negative")
	case f > MaxMetered:
		return refuse(et, ReasonMeteredInvalid, fmt.Sprintf("%s = %s exceeds the sanity ceiling %g", name, n, float64(MaxMetered)))
	}
	return nil
}

func checkQuota(plain json.RawMessage) error {
	et := manifest.QuotaExceeded
	m, ok := object(plain)
	if !ok {
		return refuse(et, ReasonQuotaReasonInvalid, "the payload is not an object")
	}
	r, ok := str(m["reason"])
	if !ok || r == "" || len(r) > MaxQuotaReason || !utf8.ValidString(r) {
		return refuse(et, ReasonQuotaReasonInvalid, fmt.Sprintf("reason must be a non-empty string of at most %d bytes", MaxQuotaReason))
	}
	if d, has := m["dimension"]; has {
		s, ok := str(d)
		if !ok || s == "" || len(s) > MaxDimensionName {
			return refuse(et, ReasonQuotaReasonInvalid, fmt.Sprintf("dimension must be a non-empty string of at most %d bytes", MaxDimensionName))
		}
	}
	return nil
}

// EffectDecisionPrefix starts every effect-written decision id after the rewrite.
const EffectDecisionPrefix = "effect:"

// EffectDecisionID is the id an effect-written decision is folded under (spec §5).
func EffectDecisionID(stepID string, attempt int, id string) string {
	return EffectDecisionPrefix + stepID + "#" + strconv.Itoa(attempt) + ":" + id
}

func checkDecision(e Emit, out Checked, recorded map[string]fold.Decision) (Checked, error) {
	et := manifest.DecisionRecorded
	m, ok := object(out.Payload)
	if !ok {
		return Checked{}, refuse(et, ReasonDecisionInvalid, "the payload is not an object")
	}
	id, ok := str(m["id"])
	if !ok || id == "" {
		return Checked{}, refuse(et, ReasonDecisionInvalid, "id must be a non-empty string")
	}
	if _, has := m["choice"]; !has {
		return Checked{}, refuse(et, ReasonDecisionInvalid, "choice is required")
	}
	if _, has := m["innerSteps"]; has {
		return Checked{}, refuse(et, ReasonDecisionInvalid, "innerSteps is written by the kernel only")
	}
	folded := id
	if e.Source == SourceEffect {
		folded = EffectDecisionID(e.StepID, e.Attempt, id)
	}
	if strings.HasPrefix(id, ReservedDecisionPrefix) || strings.HasPrefix(folded, ReservedDecisionPrefix) {
		return Checked{}, refuse(et, ReasonReservedDecisionID, fmt.Sprintf("decision id %q is reserved for the kernel", id))
	}
	if e.Source != SourceEffect && strings.HasPrefix(id, EffectDecisionPrefix) {
		return Checked{}, refuse(et, ReasonReservedDecisionID, fmt.Sprintf("decision id %q is in the effects' namespace", id))
	}
	if folded == "__proto__" {
		return Checked{}, refuse(et, ReasonDecisionInvalid, "decision id __proto__ is a rejected container key")
	}
	if prev, seen := recorded[folded]; seen && !spi.SameJSON(orNull(prev.Choice), orNull(m["choice"])) {
		return Checked{}, refuse(et, ReasonChoiceChanged, fmt.Sprintf("decision %q is already recorded with another choice", folded))
	}
	out.DecisionID = folded
	if folded != id {
		m["id"] = mustJSON(folded)
		b, err := encodePlain(m)
		if err != nil {
			return Checked{}, refuse(et, ReasonDecisionInvalid, err.Error())
		}
		out.Payload, out.Rewritten = b, true
	}
	return out, nil
}
