package flowscript

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// Fake describes one named deterministic effect: its toolId, whether the effect is registered
// at-most-once, the typed failure channels it declares, and its behaviour as a function of its
// input and attempt. Any implementation of the format provides the same fakes under the same
// names (docs/goldens.md lists them). Every fake first waits input.latencyUs microseconds when its
// input is an object with that member (format 2; see latency).
type Fake struct {
	Name       string
	AtMostOnce bool
	Channels   []string // declared typed failure channels (spec §4.1)
	Doc        string
}

// Fakes lists every fake, by name.
func Fakes() []Fake {
	return []Fake{
		{Name: "echo", Doc: "returns its input"},
		{Name: "fail-typed", Channels: []string{"declined", "invalid"},
			Doc: `fails typed on channel input.channel (default "declined") with payload input.payload (default {}); declares "declined" (any payload) and "invalid" (payload must be an object with a string member "why")`},
		{Name: "fail-undeclared", Channels: []string{"declined"},
			Doc: `fails typed on channel "undeclared", which it does not declare: the kernel degrades it to an untyped failure, loudly`},
		{Name: "fail-untyped", Doc: `fails untyped with message input.message (default "fake: untyped failure")`},
		{Name: "fail-until", Doc: `fails untyped while its attempt is below input.succeedOn (default 2), then returns input.value`},
		{Name: "slow", Doc: "waits input.ms milliseconds (or until its step deadline passes) and returns input.value; with a step timeout far below input.ms it always times out"},
		{Name: "counter", Doc: `returns {"key": input.key, "n": n}, n = 1 + the number of earlier invocations with that key in this runtime (the wire conformance profile's counts per execution, docs/wire.md)`},
		{Name: "emit-from-effect", Doc: `emits input.eventType (default "fx.emitted") with payload input.payload through the effect context (never stamped), then returns input.value`},
		{Name: "meter", Doc: `meters input.tokens / input.costUsd (each optional) as RESOURCE_METERED, then returns input.value`},
		{Name: "cancelled", Doc: "ends cancelled (STEP_CANCELLED)"},
		{Name: "panic", Doc: `panics with input.message (default "fake: panic"): an untyped failure`},
		{Name: "once", AtMostOnce: true, Doc: "returns its input; registered at-most-once, so a crash that leaves its outcome unknown parks the execution in doubt (K9.3)"},
		{Name: "fetch", Doc: `returns {"host": input.host, "status": 200}; it reaches input.host, which a kernel's egress ring judges (docs/wire.md, conformance profile)`},
		{Name: "shape", Doc: `returns its input; a kernel's validate ring requires its output to be an object with a boolean "ok" (docs/wire.md, conformance profile)`},
		{Name: "forbidden", Doc: "returns its input; a kernel's authorize ring never allows it (docs/wire.md, conformance profile)"},
	}
}

// LookupFake returns the fake named name.
func LookupFake(name string) (Fake, bool) {
	for _, f := range Fakes() {
		if f.Name == name {
			return f, true
		}
	}
	return Fake{}, false
}

// FakeNames returns the fakes' names, sorted.
func FakeNames() []string {
	var out []string
	for _, f := range Fakes() {
		out = append(out, f.Name)
	}
	sort.Strings(out)
	return out
}

// fakeInput is the union of the fakes' input fields.
type fakeInput struct {
	Channel   string          `json:"channel"`
	Payload   json.RawMessage `json:"payload"`
	Message   string          `json:"message"`
	SucceedOn int             `json:"succeedOn"`
	Value     json.RawMessage `json:"value"`
	Ms        int64           `json:"ms"`
	Key       string          `json:"key"`
	EventType string          `json:"eventType"`
	Tokens    *float64        `json:"tokens"`
	CostUSD   *float64        `json:"costUsd"`
	LatencyUs int64           `json:"latencyUs"`
}

// MaxLatency caps the latencyUs wait of a fake.
const MaxLatency = time.Second

// latency is the wait a fake makes before it behaves: input.latencyUs microseconds (format 2),
// capped at MaxLatency, cut short when the step's deadline passes. It only moves the effect in
// time (the interleaving of parallel branches); a step whose timeoutMs it outlasts times out.
func latency(ec *kernel.EffectContext, us int64) {
	if us <= 0 {
		return
	}
	t := time.NewTimer(min(time.Duration(us)*time.Microsecond, MaxLatency))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ec.Context().Done():
	}
}

func valueOr(v json.RawMessage) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}

// Effects returns a fresh set of the fakes as kernel effects, keyed by name (toolId). Each call
// has its own counters: give each runtime (each golden run) its own set.
func Effects() map[string]kernel.EffectDef {
	var mu sync.Mutex
	counts := map[string]int{}
	parse := func(in json.RawMessage) fakeInput {
		var f fakeInput
		_ = json.Unmarshal(in, &f) // a non-object input leaves every field at its default
		return f
	}
	fns := map[string]kernel.Effect{
		"echo": func(_ *kernel.EffectContext, in json.RawMessage) (any, error) { return valueOr(in), nil },
		"fail-typed": func(_ *kernel.EffectContext, in json.RawMessage) (any, error) {
			f := parse(in)
			ch := f.Channel
			if ch == "" {
				ch = "declined"
			}
			p := f.Payload
			if p == nil {
				p = json.RawMessage("{}")
			}
			return nil, kernel.Fail(ch, p)
		},
		"fail-undeclared": func(_ *kernel.EffectContext, in json.RawMessage) (any, error) {
			return nil, kernel.Fail("undeclared", json.RawMessage("{}"))
		},
		"fail-untyped": func(_ *kernel.EffectContext, in json.RawMessage) (any, error) {
			m := parse(in).Message
			if m == "" {
				m = "fake: untyped failure"
			}
			return nil, errors.New(m)
		},
		"fail-until": func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
			f := parse(in)
			n := f.SucceedOn
			if n == 0 {
				n = 2
			}
			if ec.Attempt() < n {
				return nil, fmt.Errorf("fake: attempt %d fails until attempt %d", ec.Attempt(), n)
			}
			return valueOr(f.Value), nil
		},
		"slow": func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
			f := parse(in)
			t := time.NewTimer(time.Duration(f.Ms) * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
				return valueOr(f.Value), nil
			case <-ec.Context().Done():
				return nil, ec.Context().Err()
			}
		},
		"counter": func(_ *kernel.EffectContext, in json.RawMessage) (any, error) {
			k := parse(in).Key
			mu.Lock()
			counts[k]++
			n := counts[k]
			mu.Unlock()
			return map[string]any{"key": k, "n": n}, nil
		},
		"emit-from-effect": func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
			f := parse(in)
			et := f.EventType
			if et == "" {
				et = "fx.emitted"
			}
			if err := ec.Emit(et, valueOr(f.Payload)); err != nil {
				return nil, err
			}
			return valueOr(f.Value), nil
		},
		"meter": func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
			f := parse(in)
			if err := ec.Meter(kernel.Usage{Tokens: f.Tokens, CostUSD: f.CostUSD}); err != nil {
				return nil, err
			}
			return valueOr(f.Value), nil
		},
		"cancelled": func(*kernel.EffectContext, json.RawMessage) (any, error) { return nil, context.Canceled },
		"panic": func(_ *kernel.EffectContext, in json.RawMessage) (any, error) {
			m := parse(in).Message
			if m == "" {
				m = "fake: panic"
			}
			panic(m)
		},
		"once": func(_ *kernel.EffectContext, in json.RawMessage) (any, error) { return valueOr(in), nil },
		"fetch": func(_ *kernel.EffectContext, in json.RawMessage) (any, error) {
			var p struct {
				Host string `json:"host"`
			}
			_ = json.Unmarshal(in, &p)
			return map[string]any{"host": p.Host, "status": 200}, nil
		},
		"shape":     func(_ *kernel.EffectContext, in json.RawMessage) (any, error) { return valueOr(in), nil },
		"forbidden": func(_ *kernel.EffectContext, in json.RawMessage) (any, error) { return valueOr(in), nil },
	}
	schemas := map[string]kernel.PayloadSchema{"invalid": whySchema}
	out := make(map[string]kernel.EffectDef, len(fns))
	for _, f := range Fakes() {
		fn := fns[f.Name]
		def := kernel.EffectDef{AtMostOnce: f.AtMostOnce, Fn: func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
			latency(ec, parse(in).LatencyUs)
			return fn(ec, in)
		}}
		if len(f.Channels) > 0 {
			def.Errors = map[string]kernel.PayloadSchema{}
			for _, ch := range f.Channels {
				def.Errors[ch] = kernel.AnyPayload
				if sc, ok := schemas[ch]; ok {
					def.Errors[ch] = sc
				}
			}
		}
		out[f.Name] = def
	}
	return out
}

// whySchema is the payload schema of fail-typed's "invalid" channel: an object with a string "why".
func whySchema(p json.RawMessage) error {
	var v struct {
		Why *string `json:"why"`
	}
	if err := json.Unmarshal(p, &v); err != nil || v.Why == nil {
		return errors.New(`want an object with a string member "why"`)
	}
	return nil
}
