package carrier

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spi"
)

// The conformance profile (docs/wire.md, "Conformance profile"): the named deterministic fake
// tools, the ring configuration and the budget a kernel under `certify kernel` is served with, so
// the same flows produce the same logs on any kernel.
const (
	ToolEcho      = "echo"      // returns its input
	ToolFail      = "fail"      // fails untyped with its input as the message
	ToolMeter     = "meter"     // meters {tokens: input.tokens} and returns its input
	ToolFetch     = "fetch"     // reaches input.host (egress ring), returns {host, status: 200}
	ToolShape     = "shape"     // returns input; its output must be an object with a boolean "ok"
	ToolForbidden = "forbidden" // never authorized
	HostAllowed   = "allowed.example"
	BudgetTokens  = 10.0
)

// ProfileTools returns the fake tools of the conformance profile.
func ProfileTools() map[string]Tool {
	return map[string]Tool{
		ToolEcho: {Fn: func(_ *kernel.EffectContext, in json.RawMessage) (any, error) { return in, nil }},
		ToolFail: {Fn: func(_ *kernel.EffectContext, in json.RawMessage) (any, error) {
			return nil, fmt.Errorf("fail: %s", in)
		}},
		ToolMeter: {Fn: func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
			var p struct {
				Tokens float64 `json:"tokens"`
			}
			_ = json.Unmarshal(in, &p)
			if err := ec.Meter(kernel.Usage{Tokens: &p.Tokens}); err != nil {
				return nil, err
			}
			return in, nil
		}},
		ToolFetch: {
			Fn: func(_ *kernel.EffectContext, in json.RawMessage) (any, error) {
				return map[string]any{"host": hostOf(in), "status": 200}, nil
			},
			Egress: hostOf,
		},
		ToolShape: {
			Fn: func(_ *kernel.EffectContext, in json.RawMessage) (any, error) { return in, nil },
			Output: func(out json.RawMessage) error {
				var o map[string]json.RawMessage
				if json.Unmarshal(out, &o) != nil {
					return errors.New("output is not an object")
				}
				var ok bool
				if v, has := o["ok"]; !has || json.Unmarshal(v, &ok) != nil {
					return errors.New(`output.ok must be a boolean`)
				}
				return nil
			},
		},
		ToolForbidden: {Fn: func(_ *kernel.EffectContext, in json.RawMessage) (any, error) { return in, nil }},
	}
}

func hostOf(in json.RawMessage) string {
	var p struct {
		Host string `json:"host"`
	}
	_ = json.Unmarshal(in, &p)
	return p.Host
}

// ProfileRings returns the rings of the conformance profile: every tool but "forbidden" allowed,
// egress only to allowed.example.
func ProfileRings() Rings {
	allowed := map[string]bool{}
	for id := range ProfileTools() {
		if id != ToolForbidden {
			allowed[id] = true
		}
	}
	return Rings{Allowed: allowed, EgressAllowed: map[string]bool{HostAllowed: true}}
}

// ProfileConfig returns a kernel.Config of the conformance profile over store: the ring-wrapped
// tools, the token budget, and (when deterministic) a fixed clock and sequential ids so that two
// runs of the same calls write byte-identical logs. Hooks break the kernel (certify self-test).
func ProfileConfig(store spi.EventStore, deterministic bool, rings Rings, hooks kernel.Hooks) kernel.Config {
	cfg := kernel.Config{
		Store:      store,
		Effects:    rings.Wrap(ProfileTools()),
		Budget:     kernel.Budget{"tokens": BudgetTokens},
		RunTimeout: time.Hour, // a wire run lasts as long as its driver takes (leases bound drivers)
		Hooks:      hooks,
		Warn:       func(kernel.Warning) {},
	}
	if deterministic {
		cfg.Now = kernel.FixedClock(1_700_000_000_000, 1)
		cfg.NewID = kernel.SequentialIDs("ev")
	}
	return cfg
}

// NewProfile builds a runtime of the conformance profile over store and mounts a carrier on it.
func NewProfile(store spi.EventStore, deterministic bool, opts Options) (*Carrier, *kernel.Runtime, error) {
	rt, err := kernel.New(ProfileConfig(store, deterministic, ProfileRings(), kernel.Hooks{}))
	if err != nil {
		return nil, nil, err
	}
	if opts.Tools == nil {
		opts.Tools = ToolIDs(ProfileTools())
	}
	c, err := New(rt, store, opts)
	return c, rt, err
}
