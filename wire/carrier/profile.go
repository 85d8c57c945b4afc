package carrier

import (
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spi"
)

// The conformance profile (docs/wire.md, "Conformance profile"): the deterministic fakes of the
// flow-script format (goldens/flowscript, docs/goldens.md) as tools, the ring configuration and the
// budget a kernel under `certify kernel` is served with, so the same flow scripts produce the same
// logs on any kernel.
const (
	ToolEcho      = "echo"         // returns its input
	ToolFail      = "fail-untyped" // fails untyped with input.message
	ToolMeter     = "meter"        // meters input.tokens and returns input.value
	ToolFetch     = "fetch"        // reaches input.host (egress ring), returns {host, status: 200}
	ToolShape     = "shape"        // returns input; its output must be an object with a boolean "ok"
	ToolForbidden = "forbidden"    // never authorized
	ToolCounter   = "counter"      // counts its invocations per execution and input.key
	HostAllowed   = "allowed.example"
	BudgetTokens  = 10.0
)

// ProfileTools returns the tools of the conformance profile: every flow-script fake, with what the
// rings know of fetch (its egress host) and shape (its output schema).
func ProfileTools() map[string]Tool {
	out := map[string]Tool{}
	for id, def := range flowscript.Effects() {
		out[id] = Tool{Fn: def.Fn, Errors: def.Errors, AtMostOnce: def.AtMostOnce}
	}
	fetch := out[ToolFetch]
	fetch.Egress = hostOf
	out[ToolFetch] = fetch
	shape := out[ToolShape]
	shape.Output = func(out json.RawMessage) error {
		var o map[string]json.RawMessage
		if json.Unmarshal(out, &o) != nil {
			return errors.New("output is not an object")
		}
		var ok bool
		if v, has := o["ok"]; !has || json.Unmarshal(v, &ok) != nil {
			return errors.New(`output.ok must be a boolean`)
		}
		return nil
	}
	out[ToolShape] = shape
	counter := out[ToolCounter]
	counter.Fn = perExecutionCounter()
	out[ToolCounter] = counter
	return out
}

// perExecutionCounter is the profile's counter fake: n counts the earlier invocations with the
// key in the same execution, so one kernel serving many executions answers each as a kernel
// serving it alone would (a golden's runtime runs one execution: its answers are the fake's).
func perExecutionCounter() kernel.Effect {
	var mu sync.Mutex
	counts := map[[2]string]int{}
	return func(ec *kernel.EffectContext, in json.RawMessage) (any, error) {
		var p struct {
			Key string `json:"key"`
		}
		_ = json.Unmarshal(in, &p)
		mu.Lock()
		defer mu.Unlock()
		k := [2]string{ec.ExecutionID(), p.Key}
		counts[k]++
		return map[string]any{"key": p.Key, "n": counts[k]}, nil
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

// Wave2 enables every Wave 2 feature: continueAsNew, receive and select (I-WIRE-21).
func Wave2() kernel.Features {
	return kernel.Features{ContinueAsNew: true, Receive: true, Select: true}
}

// NewProfile builds a runtime of the conformance profile over store, with opts.Features, and
// mounts a carrier on it that serves the conformance extension (conformance.clock and
// conformance.crash: the runtime's clock and store are the extension's).
func NewProfile(store spi.EventStore, deterministic bool, opts Options) (*Carrier, *kernel.Runtime, error) {
	return NewProfileWith(store, deterministic, opts, ProfileRings(), nil, nil)
}

// NewProfileWith is NewProfile with the profile's rings, the runtime's configuration and the
// tools changed (configure, when set, edits the configuration — a broken kernel's hooks, or a
// choice made otherwise; tools, when set, edits the profile's tool table): a broken kernel's build.
func NewProfileWith(store spi.EventStore, deterministic bool, opts Options, rings Rings, configure func(*kernel.Config), tools func(map[string]Tool)) (*Carrier, *kernel.Runtime, error) {
	cfg := ProfileConfig(store, deterministic, rings, kernel.Hooks{})
	if configure != nil {
		configure(&cfg)
	}
	if tools != nil {
		t := ProfileTools()
		tools(t)
		cfg.Effects = rings.Wrap(t)
	}
	cfg.Features = opts.Features
	WithConformance(&cfg, &opts)
	if opts.MaxEvents > 0 {
		opts.ledger = newLedger(store)
		cfg.Store = opts.ledger.Store(cfg.Store)
	}
	rt, err := kernel.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	if opts.Tools == nil {
		opts.Tools = ToolIDs(ProfileTools())
	}
	c, err := New(rt, store, opts)
	return c, rt, err
}

// WithConformance puts the conformance extension between a runtime configuration and its clock
// and store, and has opts serve it.
func WithConformance(cfg *kernel.Config, opts *Options) {
	base := cfg.Now
	if base == nil {
		base = func() int64 { return time.Now().UnixMilli() }
	}
	cf := NewConformance(base)
	cfg.Now, cfg.Store = cf.Now, cf.Store(cfg.Store)
	opts.Conformance = cf
}
