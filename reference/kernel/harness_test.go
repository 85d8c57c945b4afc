package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// testCtx bounds every test call.
func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// harness is a runtime over the memory store with a deterministic clock and ids, and counters of
// every effect invocation.
type harness struct {
	t     testing.TB
	store *memory.EventStore
	rt    *Runtime
	cfg   Config

	mu    sync.Mutex
	calls map[string]int
	warns []Warning
}

func newHarness(t testing.TB, mod func(*Config)) *harness {
	t.Helper()
	h := &harness{t: t, store: memory.NewEventStore(), calls: map[string]int{}}
	cfg := Config{
		Store: h.store,
		Now:   FixedClock(1_000, 1),
		NewID: SequentialIDs("ev"),
		Warn: func(w Warning) {
			h.mu.Lock()
			h.warns = append(h.warns, w)
			h.mu.Unlock()
		},
		RunTimeout: 10 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	applyMutantUnderTest(t, &cfg)
	rt, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.rt, h.cfg = rt, cfg
	return h
}

// restart returns a new runtime over the same stores (a process restart).
func (h *harness) restart(mod func(*Config)) *Runtime {
	cfg := h.cfg
	if mod != nil {
		mod(&cfg)
	}
	rt, err := New(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.rt.mu.RLock()
	for _, f := range h.rt.flows {
		rt.flows[f.ID] = f
	}
	h.rt.mu.RUnlock()
	h.rt = rt
	return rt
}

func (h *harness) register(id string, fn Flow) {
	h.t.Helper()
	if err := h.rt.Register(FlowDef{ID: id, Fn: fn}); err != nil {
		h.t.Fatal(err)
	}
}

// effect returns an effect that counts its invocations and returns out.
func (h *harness) effect(name string, out any) Effect {
	return func(ec *EffectContext, _ json.RawMessage) (any, error) {
		h.mu.Lock()
		h.calls[name]++
		h.mu.Unlock()
		return out, nil
	}
}

func (h *harness) callCount(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[name]
}

func (h *harness) log(id string) []spi.Envelope {
	h.t.Helper()
	evs, err := h.store.Read(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return evs
}

func (h *harness) state(id string) fold.State {
	h.t.Helper()
	st, err := fold.Fold(fold.Current(), nil, h.log(id))
	if err != nil {
		h.t.Fatal(err)
	}
	return st
}

// types lists event types, marking stamped envelopes with a trailing '*'.
func types(evs []spi.Envelope) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.EventType
		if stampOf(e) != "" {
			out[i] += "*"
		}
	}
	return out
}

func stampOf(e spi.Envelope) string {
	var m struct {
		FlowEmit string `json:"flowEmit"`
	}
	_ = json.Unmarshal(e.Metadata, &m)
	return m.FlowEmit
}

// emitsOf lists the emits in a log as "TYPE payload[*]".
func emitsOf(evs []spi.Envelope, kinds ...string) []string {
	var out []string
	for _, e := range evs {
		for _, k := range kinds {
			if e.EventType == k {
				s := e.EventType + " " + string(e.Payload)
				if stampOf(e) != "" {
					s += "*"
				}
				out = append(out, s)
			}
		}
	}
	return out
}

func must[T any](t testing.TB, v T, err error) T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func failf(t testing.TB, check string, clauses []string, op string, got, want any) {
	t.Helper()
	t.Errorf("%s [%s]: %s = %v, want %v", check, strings.Join(clauses, " "), op, got, want)
}

var _ = fmt.Sprintf

// ok fails the test on err and returns r.
func (h *harness) ok(r Result, err error) Result {
	h.t.Helper()
	if err != nil {
		h.t.Fatalf("unexpected error: %v", err)
	}
	return r
}

// crashStore fails the first append batch holding an envelope that matches crashOn: the process
// "dies" before that write, so nothing of the batch reaches the log.
type crashStore struct {
	spi.EventStore
	mu      sync.Mutex
	crashOn func(spi.Envelope) bool
}

var errCrash = fmt.Errorf("injected crash")

func (s *crashStore) Append(ctx context.Context, id string, evs []spi.Envelope, opts spi.AppendOptions) error {
	s.mu.Lock()
	f := s.crashOn
	for _, e := range evs {
		if f != nil && f(e) {
			s.crashOn = nil
			s.mu.Unlock()
			return errCrash
		}
	}
	s.mu.Unlock()
	return s.EventStore.Append(ctx, id, evs, opts)
}

func (s *crashStore) arm(f func(spi.Envelope) bool) {
	s.mu.Lock()
	s.crashOn = f
	s.mu.Unlock()
}

// newCrashHarness is a harness whose store can be armed to crash.
func newCrashHarness(t testing.TB, mod func(*Config)) (*harness, *crashStore) {
	cs := &crashStore{EventStore: memory.NewEventStore()}
	h := newHarness(t, func(c *Config) {
		c.Store = cs
		if mod != nil {
			mod(c)
		}
	})
	h.store = cs.EventStore.(*memory.EventStore)
	return h, cs
}

func isType(t string) func(spi.Envelope) bool {
	return func(e spi.Envelope) bool { return e.EventType == t }
}

func isStep(t, step string) func(spi.Envelope) bool {
	return func(e spi.Envelope) bool {
		var p struct {
			StepID string `json:"stepId"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		return e.EventType == t && p.StepID == step
	}
}

type ctxT = context.Context

var context_Canceled = context.Canceled

func (h *harness) count(name string) {
	h.mu.Lock()
	h.calls[name]++
	h.mu.Unlock()
}
