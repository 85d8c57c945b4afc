package carrier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// The conformance extension (docs/wire.md, "Conformance extension"): two test-only methods a
// kernel MAY serve in its conformance profile so `certify kernel` can drive the goldens that need
// what a wire client otherwise cannot ask of a kernel — a clock set to the driver's virtual time,
// and a crash at a given envelope of an execution (I-WIRE-24). A kernel that serves them lists
// them in its handshake's methods with feature "conformance"; a production kernel serves neither.
const (
	MethodConformanceClock = "conformance.clock"
	MethodConformanceCrash = "conformance.crash"
	// FeatureConformance is the feature of the conformance methods in a handshake's method table.
	FeatureConformance = "conformance"
)

// ConformanceMethods lists the methods of the conformance extension, as a handshake lists them.
func ConformanceMethods() []Method {
	return []Method{{Name: MethodConformanceClock, Feature: FeatureConformance}, {Name: MethodConformanceCrash, Feature: FeatureConformance}}
}

// ErrInjectedCrash is the store fault conformance.crash injects: the append fails as a crash of
// the kernel's process would leave it (nothing written).
var ErrInjectedCrash = errors.New("conformance.crash: injected crash")

// Conformance holds the state of the conformance extension for one kernel: the clock it sets and
// the crashes it arms. Its Now is the runtime's clock and its Store wraps the runtime's store.
type Conformance struct {
	base func() int64

	mu     sync.Mutex
	frozen *int64
	// crashes: execution id → the sequence whose append fails (armed by conformance.crash)
	crashes map[string]int64
	// countdown arms a crash at the n-th append from now, of any execution (the in-process
	// reference's "crash at append n", Crash); crashed records the sequence it failed at.
	countdown int
	crashed   []int64
}

// NewConformance returns the extension's state over the kernel's own clock (nil = none: every
// read of an unset clock is 0, which only a test would want).
func NewConformance(base func() int64) *Conformance {
	return &Conformance{base: base, crashes: map[string]int64{}}
}

// Now reads the clock: the time conformance.clock set, else the kernel's own.
func (cf *Conformance) Now() int64 {
	cf.mu.Lock()
	f := cf.frozen
	cf.mu.Unlock()
	if f != nil {
		return *f
	}
	if cf.base == nil {
		return 0
	}
	return cf.base()
}

// SetClock freezes the clock at now (every read returns it) or, with nil, releases it.
func (cf *Conformance) SetClock(now *int64) {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	cf.frozen = now
}

// ArmSequence makes the append that would write envelope sequence of execID fail as a crash, once.
func (cf *Conformance) ArmSequence(execID string, sequence int64) {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	cf.crashes[execID] = sequence
}

// ArmAppends makes the n-th append from now fail as a crash, once (the golden drivers' "crash at
// append n", flowscript's crash action).
func (cf *Conformance) ArmAppends(n int) {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	cf.countdown = n
}

// Crashed returns the sequences the armed crashes failed at, in order.
func (cf *Conformance) Crashed() []int64 {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	return append([]int64(nil), cf.crashed...)
}

// fail reports whether this append must fail, and disarms what made it.
func (cf *Conformance) fail(execID string, evs []spi.Envelope) bool {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	if len(evs) == 0 {
		return false
	}
	if cf.countdown > 0 {
		cf.countdown--
		if cf.countdown == 0 {
			cf.crashed = append(cf.crashed, evs[0].Sequence)
			return true
		}
	}
	seq, ok := cf.crashes[execID]
	if ok && evs[0].Sequence <= seq && seq <= evs[len(evs)-1].Sequence {
		delete(cf.crashes, execID)
		cf.crashed = append(cf.crashed, seq)
		return true
	}
	return false
}

// Store wraps the kernel's event store: an armed append fails with ErrInjectedCrash and writes
// nothing; everything else, optional methods included, is the store's.
func (cf *Conformance) Store(s spi.EventStore) spi.EventStore {
	return &crashStore{wrapped: wrapped{s}, cf: cf}
}

type crashStore struct {
	wrapped
	cf *Conformance
}

func (s *crashStore) Append(ctx context.Context, id string, evs []spi.Envelope, opts spi.AppendOptions) error {
	if s.cf.fail(id, evs) {
		return ErrInjectedCrash
	}
	return s.EventStore.Append(ctx, id, evs, opts)
}

// wrapped is the kernel's event store inside a carrier's wrapper (the conformance extension's
// crashes, the bound's ledger): it forwards the optional methods the kernel uses, and the wrapper
// overrides Append.
type wrapped struct{ spi.EventStore }

// Implements forwards the wrapped store's optional methods (spi.Capabilities).
func (s wrapped) Implements(method string) bool {
	return spi.Has(manifest.SeamEventStore, s.EventStore, method)
}

func (s wrapped) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	if f, ok := s.EventStore.(spi.Fencer); ok {
		return f.AcquireFence(ctx, id)
	}
	return spi.Fence{}, spi.ErrUnsupported
}

func (s wrapped) ReadRange(ctx context.Context, id string, from, to int64) ([]spi.Envelope, error) {
	if r, ok := s.EventStore.(spi.RangeReader); ok {
		return r.ReadRange(ctx, id, from, to)
	}
	return nil, spi.ErrUnsupported
}

// conformanceClock answers conformance.clock {now}: the kernel's clock reads now from here on
// (every read, until the next call); {now: null} gives it back its own clock.
func (c *Carrier) conformanceClock(raw json.RawMessage) (any, *bridge.RPCError) {
	var p struct {
		Now *int64 `json:"now"`
	}
	if err := decodeStrict(raw, &p); err != nil {
		return nil, invalid(MethodConformanceClock, err)
	}
	if p.Now != nil && *p.Now < 0 {
		return nil, rpcErr(CodeInvalidParams, "params", "conformance.clock: params.now must be epoch milliseconds (>= 0) or null", "field", "now")
	}
	c.conformance.SetClock(p.Now)
	return map[string]any{"now": p.Now}, nil
}

// conformanceCrash answers conformance.crash {executionId, sequence}: the kernel's append that
// would write envelope sequence of the execution fails as a crash, once (nothing written, the run
// stops, the execution stays running and recoverable).
func (c *Carrier) conformanceCrash(raw json.RawMessage) (any, *bridge.RPCError) {
	var p struct {
		ExecutionID string `json:"executionId"`
		Sequence    *int64 `json:"sequence"`
	}
	if err := decodeStrict(raw, &p); err != nil {
		return nil, invalid(MethodConformanceCrash, err)
	}
	if p.ExecutionID == "" || p.Sequence == nil || *p.Sequence < 0 {
		field := "sequence"
		if p.ExecutionID == "" {
			field = "executionId"
		}
		return nil, rpcErr(CodeInvalidParams, "params", "conformance.crash: params.executionId (a string) and params.sequence (>= 0) are required", "field", field)
	}
	if c.opts.Hooks.CrashNeedsLog {
		if flowID, err := c.rt.FlowID(context.Background(), p.ExecutionID); err == nil && flowID == "" {
			return nil, rpcErr(CodeNotFound, "execution", fmt.Sprintf("execution %q has no log", p.ExecutionID), "executionId", p.ExecutionID)
		}
	}
	c.conformance.ArmSequence(p.ExecutionID, *p.Sequence)
	return map[string]any{"executionId": p.ExecutionID, "sequence": *p.Sequence}, nil
}
