package carrier

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// Channels on which the rings refuse an effect. They are typed failures (spec §4.1): recorded once,
// served on every re-run, so a refused effect is never asked again.
const (
	ChannelEffectDenied  = "effect-denied"  // authorize: the tool is not allowed
	ChannelEgressDenied  = "egress-denied"  // egress: the host is not allowed
	ChannelOutputInvalid = "output-invalid" // validate: the effect's output fails its schema
)

// Tool is an effect offered at the effect boundary with what the rings need to know of it.
type Tool struct {
	Fn kernel.Effect
	// Egress names the host the effect reaches for an input ("" = none).
	Egress func(input json.RawMessage) string
	// Output validates the effect's output (its JSON text); nil accepts every output.
	Output func(output json.RawMessage) error
	// Errors are the typed failure channels the tool declares (spec §4.1); the rings' own channels
	// are declared beside them.
	Errors map[string]kernel.PayloadSchema
	// AtMostOnce registers the tool at-most-once (K9.3).
	AtMostOnce bool
}

// Rings are the kernel-side rings every effect runs under, whoever asked for it (ADR 0026 T2.2):
// authorize, meter (the runtime's Budget: admission control, QUOTA_EXCEEDED), validate and egress.
// They wrap the effect table once; in-process flows and wire clients resolve the same wrapped
// effects, so a wire client gains no bypass.
type Rings struct {
	// Allowed lists the tools a caller may run; nil allows every tool.
	Allowed map[string]bool
	// EgressAllowed lists the hosts an effect may reach; nil allows every host.
	EgressAllowed map[string]bool
	// Off disables authorize, egress and validate (a broken kernel; never in production).
	Off bool
}

// Wrap returns the effect table with every tool behind the rings. A refusal appends its fact
// (EFFECT_DENIED, EGRESS_DENIED) through EffectContext.emit and fails the step on the ring's
// typed channel; the effect itself never runs.
func (rg Rings) Wrap(tools map[string]Tool) map[string]kernel.EffectDef {
	out := make(map[string]kernel.EffectDef, len(tools))
	chans := map[string]kernel.PayloadSchema{ChannelEffectDenied: kernel.AnyPayload, ChannelEgressDenied: kernel.AnyPayload, ChannelOutputInvalid: kernel.AnyPayload}
	for id, t := range tools {
		errs := make(map[string]kernel.PayloadSchema, len(chans)+len(t.Errors))
		for ch, sc := range chans {
			errs[ch] = sc
		}
		for ch, sc := range t.Errors {
			errs[ch] = sc
		}
		out[id] = kernel.EffectDef{Fn: rg.wrap(id, t), Errors: errs, AtMostOnce: t.AtMostOnce}
	}
	return out
}

func (rg Rings) wrap(id string, t Tool) kernel.Effect {
	if rg.Off {
		return t.Fn
	}
	return func(ec *kernel.EffectContext, input json.RawMessage) (any, error) {
		if rg.Allowed != nil && !rg.Allowed[id] {
			reason := fmt.Sprintf("tool %q is not authorized", id)
			if err := ec.Emit(manifest.EffectDenied, map[string]any{"stepId": ec.StepID(), "reason": reason}); err != nil {
				return nil, err
			}
			return nil, kernel.Fail(ChannelEffectDenied, map[string]any{"toolId": id, "reason": reason})
		}
		if t.Egress != nil && rg.EgressAllowed != nil {
			if host := t.Egress(input); host != "" && !rg.EgressAllowed[host] {
				reason := fmt.Sprintf("egress to %q is not allowed", host)
				if err := ec.Emit(manifest.EgressDenied, map[string]any{"stepId": ec.StepID(), "host": host, "reason": reason}); err != nil {
					return nil, err
				}
				return nil, kernel.Fail(ChannelEgressDenied, map[string]any{"host": host, "reason": reason})
			}
		}
		out, err := t.Fn(ec, input)
		if err != nil || t.Output == nil {
			return out, err
		}
		raw, jerr := kernel.Raw(out)
		if jerr != nil {
			return out, nil // the kernel fails a step whose output has no JSON form
		}
		if verr := t.Output(raw); verr != nil {
			return nil, kernel.Fail(ChannelOutputInvalid, map[string]any{"toolId": id, "reason": verr.Error()})
		}
		return out, nil
	}
}

// ToolIDs lists a tool table's ids, sorted.
func ToolIDs(tools map[string]Tool) []string {
	ids := make([]string, 0, len(tools))
	for id := range tools {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
