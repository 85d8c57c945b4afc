package kernelkit

import (
	"context"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// ringChecks: every effect a wire client asks for runs under the kernel's rings (ADR 0026 T2.2),
// each ring's refusal recorded as the conformance profile documents it (docs/wire.md, "Rings,
// kernel-side": event order, payloads, reason texts).
func ringChecks() []kitCheck {
	profile := []string{"A26.wire.rings-kernel-side", "I-WIRE-28"}
	var out []kitCheck
	for _, r := range []struct {
		name, about, stmts string
		clauses            []string
	}{
		{"authorize", "a tool the profile does not authorize (forbidden) is refused kernel-side: STEP_STARTED, EFFECT_DENIED {stepId, reason}, STEP_FAILED on channel effect-denied, answered -32021; the effect never runs",
			`{"op":"execute","id":"deny","tool":"forbidden","input":1,"onError":"continue","bind":"r"}`, profile},
		{"egress", "an effect reaching a host the profile does not allow is refused kernel-side: STEP_STARTED, EGRESS_DENIED {stepId, host, reason}, STEP_FAILED on channel egress-denied; an allowed host is reached",
			`{"op":"execute","id":"out","tool":"fetch","input":{"host":"allowed.example"}},
			{"op":"execute","id":"deny","tool":"fetch","input":{"host":"denied.example"},"onError":"continue","bind":"r"}`, profile},
		{"validate", "an effect output failing its schema (shape without a boolean ok) is refused kernel-side: STEP_FAILED on channel output-invalid {toolId, reason}; a valid output completes",
			`{"op":"execute","id":"good","tool":"shape","input":{"ok":true}},
			{"op":"execute","id":"bad","tool":"shape","input":{"ok":1},"onError":"continue","bind":"r"}`, profile},
		{"meter", "admission control refuses an effect once the budget is spent: the log holds QUOTA_EXCEEDED and the refused step fails on the quota channel, answered -32022",
			`{"op":"execute","id":"spend","tool":"meter","input":{"tokens":10}},
			{"op":"execute","id":"over","tool":"echo","input":1,"onError":"continue","bind":"r"}`,
			[]string{"A26.wire.rings-kernel-side", "S8.budget.quota-exceeded", "I-WIRE-25"}},
	} {
		out = append(out, runCheck("kernel/ring/"+r.name, r.about, ringScript(r.name, r.stmts), r.clauses...))
	}
	return append(out, check("kernel/ring/refusal-served", spec.Must, "a ring's refusal is a typed failure served on the re-drive after a resume: the refused step starts once and its effect never runs",
		kkRefusalServed, "A26.wire.rings-kernel-side", "I-WIRE-28", "S41.typed.replay-substitution"))
}

// ringScript is a flow whose statements end with one bound as r (the refusal the flow sees),
// returned.
func ringScript(name, stmts string) clients.Case {
	return scriptCase("ring-"+name, `{"format":"loom-flowscript/1","id":"kit.ring-`+name+`","body":[`+stmts+`],"return":{"$ref":"r"}}`, startOnly)
}

func kkRefusalServed(ctx context.Context, c *Case) error {
	k := scriptCase("ring-served", `{"format":"loom-flowscript/1","id":"kit.ring-served","body":[
		{"op":"execute","id":"deny","tool":"forbidden","input":1,"onError":"continue","bind":"r"},
		{"op":"suspend","on":"go"}],"return":{"$ref":"r"}}`,
		`{"format":"loom-driver/1","actions":[{"do":"start"},{"do":"resume","eventType":"go","payload":true}]}`)
	got, err := driveCase(ctx, c, k, comparison{})
	if err != nil {
		return err
	}
	return c.Diff("log", "STEP_STARTED of the refused step after a resume and a replay", map[string]int{"deny": 1}, carrier.StepStarts(got.Log))
}
