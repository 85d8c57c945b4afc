package carrier

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Options configure a Carrier. Zero values take the defaults.
type Options struct {
	// Implementation names the kernel in the handshake (default "loom-conform reference kernel",
	// version manifest.HarnessVersion, as serve-kernel states it).
	Implementation Implementation
	// Syscalls is the table the methods are derived from; nil = the runtime's (rt.Syscalls()).
	Syscalls []manifest.Syscall
	// Tools lists the toolIds the kernel resolves, advertised in the handshake.
	Tools []string
	// Lease is how long a silent driver keeps its execution before another may take it over
	// (default 30 s). A driver holding its token may always re-attach.
	Lease time.Duration
	// MaxRequestBytes caps a request body (default bridge.DefaultMaxRequestBytes).
	MaxRequestBytes int64
	// Tokens returns fresh driver tokens (default: 16 random bytes in hex). Tokens must be
	// unguessable in production; a sequence makes recorded exchanges reproducible (docs/wire.md).
	Tokens func() string
	// Hooks deliberately break the carrier (broken kernels for certify's self-test only).
	Hooks Hooks
	// Features are the Wave 2 feature flags of the runtime NewProfile builds (serve-kernel
	// --wave2); a carrier mounted on a runtime of its own serves that runtime's flags.
	Features kernel.Features
	// Conformance, when set, serves the test-only conformance extension (conformance.clock and
	// conformance.crash, docs/wire.md): its clock and store must be the runtime's (NewProfile
	// wires them).
	Conformance *Conformance
	// Token, when set, must come as "Authorization: Bearer <token>" on every request (401
	// otherwise; docs/wire.md, "Running it safely").
	Token string
	// AllowedHosts are DNS names a request's Host may give besides IP literals and localhost.
	AllowedHosts []string
	// MaxEvents bounds the events a store holding them in memory keeps (0: no bound). NewProfile
	// counts what the kernel appends: at the bound a new execution makes room by deleting finished
	// ones (completed, failed, cancelled, continued), the oldest finished first, and is refused
	// with CodeCapacity when the executions that have not finished hold it all.
	MaxEvents int64
	// MaxLive bounds the executions with a live run at once (0: no bound); past it a call that
	// would start one (start, resume, attach, deliver, resumeAs) is refused with CodeCapacity.
	MaxLive int
	// MaxFlows bounds the wire flows (flow ids) a start may register (0: no bound); a start of a new
	// one past it is refused with CodeCapacity. A flow stays registered: its executions may come back.
	MaxFlows int

	ledger *ledger // NewProfile's count of the events held (MaxEvents)
}

// Carrier serves the wire ABI for one kernel.Runtime. It is safe for concurrent use.
type Carrier struct {
	rt        *kernel.Runtime
	store     spi.EventStore
	opts      Options
	methods   map[string]Method
	handshake Handshake
	guard     guard   // who may call over HTTP, and how many bytes at once
	ledger    *ledger // the events held, when MaxEvents bounds them

	mu       sync.Mutex
	sessions map[string]*session // execution id → its live run
	flows    map[string]bool     // flow ids registered as wire flows
	// conformance serves the test-only conformance.* methods (nil: not served).
	conformance *Conformance
	// defects' own memory (Hooks.StaleTokenAccepted, Hooks.BudgetLeaks)
	stale      map[string][]string // execution id → tokens its earlier seats held
	lastBudget kernel.Budget
}

// New mounts a carrier on rt, whose event store is store (getState reads the log from it; with a
// nil store getState cannot include the log).
func New(rt *kernel.Runtime, store spi.EventStore, opts Options) (*Carrier, error) {
	if rt == nil {
		return nil, errors.New("carrier: a runtime is required")
	}
	if opts.Implementation.Name == "" {
		opts.Implementation = Implementation{Name: "loom-conform reference kernel", Version: manifest.HarnessVersion}
	}
	if opts.Lease <= 0 {
		opts.Lease = 30 * time.Second
	}
	if opts.Tokens == nil {
		opts.Tokens = newToken
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = bridge.DefaultMaxRequestBytes
	}
	g, err := newGuard(opts)
	if err != nil {
		return nil, err
	}
	table := opts.Syscalls
	if table == nil {
		table = rt.Syscalls()
	}
	c := &Carrier{rt: rt, store: store, opts: opts, methods: map[string]Method{}, sessions: map[string]*session{}, flows: map[string]bool{},
		conformance: opts.Conformance, stale: map[string][]string{}, guard: g, ledger: opts.ledger}
	if opts.Hooks.AdoptsFlows {
		for _, def := range rt.Flows() {
			def.CodeHash = "wire-carrier/" + manifest.WireAbiVersion
			if err := rt.Register(def); err != nil {
				return nil, err
			}
		}
	}
	ms := DeriveMethods(table)
	if opts.Hooks.NoCancel {
		ms = slices.DeleteFunc(ms, func(m Method) bool { return m.Name == MethodCancel })
	}
	if c.conformance != nil {
		ms = append(ms, ConformanceMethods()...)
	}
	for _, m := range ms {
		c.methods[m.Name] = m
	}
	adv := append([]manifest.Syscall(nil), table...)
	if opts.Hooks.HandshakeLies {
		for i := range adv {
			adv[i].Kind = manifest.Unary
		}
		ms = DeriveMethods(adv)
		if c.conformance != nil {
			ms = append(ms, ConformanceMethods()...)
		}
	}
	tools := append([]string{}, opts.Tools...)
	wire := manifest.WireAbiVersion
	if opts.Hooks.WireFollowsSchema {
		v, _ := manifest.ParseVersion(wire)
		wire = fmt.Sprintf("%d.%d.0", v.Major, v.Minor+1)
	}
	c.handshake = Handshake{Wire: wire, KernelAbi: manifest.KernelAbiVersion, EventSchema: manifest.EventSchemaVersion,
		Implementation: opts.Implementation, Syscalls: adv, Methods: ms, Tools: tools}
	return c, nil
}

// Handshake returns what wire.handshake answers.
func (c *Carrier) Handshake() Handshake { return c.handshake }

// Methods returns the derived method table, in handshake order.
func (c *Carrier) Methods() []Method { return append([]Method(nil), c.handshake.Methods...) }

// HandleRPC answers one request: the pure core of the carrier (HTTP is a thin driver around it).
// It never panics: a failure of the kernel is an internal error, bad input a typed error naming
// the field, and a refusal appends nothing.
func (c *Carrier) HandleRPC(ctx context.Context, req Request) (resp Response) {
	resp = Response{JSONRPC: "2.0", ID: req.ID}
	if len(resp.ID) == 0 {
		resp.ID = json.RawMessage("null")
	}
	result, e := c.handle(ctx, req)
	if e != nil {
		resp.Error = e
		return resp
	}
	b, err := json.Marshal(result)
	if err != nil {
		resp.Error = rpcErr(CodeInternalError, "internal", "encoding the result: "+err.Error())
		return resp
	}
	resp.Result = b
	return resp
}

// handle answers one request with its result, unencoded, or its error.
func (c *Carrier) handle(ctx context.Context, req Request) (result any, e *bridge.RPCError) {
	defer func() {
		if p := recover(); p != nil {
			result, e = nil, rpcErr(CodeInternalError, "internal", fmt.Sprintf("the kernel panicked: %v", p))
		}
	}()
	result, e = c.dispatch(ctx, req)
	if e != nil {
		if to, ok := c.opts.Hooks.ErrorCodes[e.Code]; ok {
			e.Code = to
		}
		if c.opts.Hooks.FieldWithParams {
			e = prefixField(e)
		}
		return nil, e
	}
	return result, nil
}

func (c *Carrier) dispatch(ctx context.Context, req Request) (any, *bridge.RPCError) {
	if req.JSONRPC != "2.0" {
		return nil, rpcErr(CodeInvalidRequest, "request", `"jsonrpc" must be "2.0"`, "field", "jsonrpc")
	}
	m, ok := c.methods[req.Method]
	if !ok {
		return nil, rpcErr(CodeMethodNotFound, "method", fmt.Sprintf("method %q is not part of this kernel's wire ABI (see wire.handshake)", req.Method), "method", req.Method)
	}
	switch m.Name {
	case MethodHandshake:
		var p struct {
			Client string `json:"client"`
			Wire   string `json:"wire"`
		}
		if err := decodeStrict(req.Params, &p); err != nil {
			return nil, invalid(req.Method, err)
		}
		return c.handshake, nil
	case MethodStart:
		return c.start(ctx, req.Params)
	case MethodResume:
		return c.resume(ctx, req.Params)
	case MethodGetState:
		return c.getState(ctx, req.Params)
	case MethodCancel:
		return c.cancel(ctx, req.Params)
	case MethodAttach:
		return c.attach(ctx, req.Params)
	case MethodComplete:
		return c.complete(ctx, req.Params)
	case MethodResumeAs:
		return c.resumeAs(ctx, req.Params)
	case MethodDeliver:
		return c.deliver(ctx, req.Params)
	case MethodConformanceClock:
		return c.conformanceClock(req.Params)
	case MethodConformanceCrash:
		return c.conformanceCrash(req.Params)
	}
	if m.Syscall != "" {
		return c.syscall(ctx, m, req.Params)
	}
	return nil, rpcErr(CodeMethodNotFound, "method", fmt.Sprintf("method %q has no handler", req.Method))
}

// invalid is the answer to params the strict decoder refused: data.field names the member when the
// decoder did (I-WIRE-48: the path below params).
func invalid(method string, err error) *bridge.RPCError {
	var fe *fieldErr
	if errors.As(err, &fe) && fe.field != "" {
		return rpcErr(CodeInvalidParams, "params", method+": "+err.Error(), "reason", err.Error(), "field", fe.field)
	}
	return rpcErr(CodeInvalidParams, "params", method+": "+err.Error(), "reason", err.Error())
}

// required answers the first of the named string members (name, value pairs, in the method's
// documented order) that is empty: -32602 naming it; nil when each has a value.
func required(method string, kv ...string) *bridge.RPCError {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			return rpcErr(CodeInvalidParams, "params", fmt.Sprintf("%s: params.%s is required", method, kv[i]), "field", kv[i])
		}
	}
	return nil
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ensureFlow registers flowID as a wire flow: its code is the connected driver.
func (c *Carrier) ensureFlow(flowID string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flows[flowID] {
		return nil
	}
	if err := c.rt.Register(kernel.FlowDef{ID: flowID, Fn: c.flowFn}); err != nil {
		return err
	}
	c.flows[flowID] = true
	return nil
}

// startResult is the answer of execution.start, resume and attach.
type startResult struct {
	ExecutionID    string `json:"executionId"`
	Status         string `json:"status"`
	Driver         string `json:"driver,omitempty"`
	Mode           string `json:"mode,omitempty"`
	AwaitingDriver bool   `json:"awaitingDriver,omitempty"`
	SuspendedOn    string `json:"suspendedOn,omitempty"`
	Output         any    `json:"output,omitempty"`
	Error          any    `json:"error,omitempty"`
}

func (c *Carrier) start(ctx context.Context, raw json.RawMessage) (any, *bridge.RPCError) {
	var p struct {
		FlowID      string          `json:"flowId"`
		ExecutionID string          `json:"executionId"`
		Input       json.RawMessage `json:"input"`
		Budget      kernel.Budget   `json:"budget"`
	}
	if err := decodeStrict(raw, &p); err != nil {
		return nil, invalid(MethodStart, err)
	}
	if e := checkBudget(p.Budget); e != nil {
		return nil, e
	}
	if p.FlowID == "" {
		return nil, rpcErr(CodeInvalidParams, "params", "execution.start: params.flowId is required", "field", "flowId")
	}
	if p.ExecutionID == "" {
		p.ExecutionID = "wx-" + newToken()[:16]
	}
	if e := c.admitFlow(p.FlowID); e != nil {
		return nil, e
	}
	if err := c.ensureFlow(p.FlowID); err != nil {
		return nil, rpcErr(CodeInvalidParams, "params", err.Error(), "field", "flowId")
	}
	input := any(p.Input)
	if p.Input == nil {
		input = nil
	}
	if e := c.admitStart(ctx); e != nil {
		return nil, e
	}
	s, e := c.newSession(p.ExecutionID, true, "live")
	if e != nil {
		if e.Code == CodeCapacity {
			return nil, e
		}
		return nil, rpcErr(CodeAlreadyExists, "exists", fmt.Sprintf("execution %q already exists (it has a live run)", p.ExecutionID), "executionId", p.ExecutionID)
	}
	if c.opts.Hooks.BudgetLeaks {
		c.mu.Lock()
		if p.Budget != nil {
			c.lastBudget = p.Budget
		} else {
			p.Budget = c.lastBudget
		}
		c.mu.Unlock()
	}
	p.Budget = c.slipBudget(p.Budget)
	if p.Budget != nil && !c.opts.Hooks.IgnoreExecutionBudget {
		// an execution that exists keeps its budget: its start is refused below, -32004
		if flowID, err := c.rt.FlowID(ctx, p.ExecutionID); err == nil && flowID == "" {
			c.rt.SetExecutionBudget(p.ExecutionID, p.Budget)
		}
	}
	return c.launch(s, func(ctx context.Context) (kernel.Result, error) {
		return c.rt.Start(ctx, p.FlowID, p.ExecutionID, input)
	})
}

func (c *Carrier) resume(ctx context.Context, raw json.RawMessage) (any, *bridge.RPCError) {
	var p struct {
		ExecutionID string          `json:"executionId"`
		EventType   string          `json:"eventType"`
		Payload     json.RawMessage `json:"payload"`
		Attach      bool            `json:"attach"`
	}
	if err := decodeStrict(raw, &p); err != nil {
		return nil, invalid(MethodResume, err)
	}
	if e := required(MethodResume, "executionId", p.ExecutionID, "eventType", p.EventType); e != nil {
		return nil, e
	}
	if _, e := c.flowOf(ctx, p.ExecutionID); e != nil {
		return nil, e
	}
	payload := payloadOr(p.Payload)
	live := c.live(p.ExecutionID)
	res, done, eventType, payload := c.resumeDefect(ctx, p.ExecutionID, p.EventType, payload, live)
	if r, ok := c.slipResume(ctx, p.ExecutionID, &eventType, payload, live); ok {
		return r, nil
	}
	switch {
	case done:
		return res, nil
	case live:
		// spec §5: a resume that arrives before the execution parks is refused (not-suspended)
		return nil, rpcErr(CodeRefused, "resume-refused", fmt.Sprintf("resume refused (not-suspended): event type %q: execution %q is running (a driver holds it or one is awaited), not parked", p.EventType, p.ExecutionID),
			"reason", "not-suspended")
	}
	if c.opts.Hooks.DropResumeWithoutDriver && !p.Attach {
		return startResult{ExecutionID: p.ExecutionID, Status: fold.StatusRunning, AwaitingDriver: true}, nil
	}
	s, e := c.newSession(p.ExecutionID, p.Attach, "live")
	if e != nil {
		return nil, e
	}
	return c.launch(s, func(ctx context.Context) (kernel.Result, error) {
		return c.rt.Resume(ctx, p.ExecutionID, eventType, payload)
	})
}

// live reports whether the execution has a live run (a driver holds it, or it awaits one).
func (c *Carrier) live(execID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[execID] != nil
}

// flowOf registers the flow that wrote the execution's log as a wire flow.
func (c *Carrier) flowOf(ctx context.Context, execID string) (string, *bridge.RPCError) {
	flowID, err := c.rt.FlowID(ctx, execID)
	if err != nil {
		return "", toRPC(err)
	}
	if flowID == "" {
		return "", rpcErr(CodeNotFound, "execution", fmt.Sprintf("execution %q has no log", execID), "executionId", execID)
	}
	if err := c.ensureFlow(flowID); err != nil {
		return "", toRPC(err)
	}
	return flowID, nil
}

func (c *Carrier) attach(ctx context.Context, raw json.RawMessage) (any, *bridge.RPCError) {
	var p struct {
		ExecutionID string `json:"executionId"`
		Driver      string `json:"driver"`
	}
	if err := decodeStrict(raw, &p); err != nil {
		return nil, invalid(MethodAttach, err)
	}
	if p.ExecutionID == "" {
		return nil, rpcErr(CodeInvalidParams, "params", "execution.attach: params.executionId is required", "field", "executionId")
	}
	c.mu.Lock()
	s := c.sessions[p.ExecutionID]
	c.mu.Unlock()
	if s != nil {
		return c.reattach(s, p.Driver)
	}
	st, err := c.rt.State(ctx, p.ExecutionID)
	if err != nil {
		return nil, toRPC(err)
	}
	if _, e := c.flowOf(ctx, p.ExecutionID); e != nil {
		return nil, e
	}
	mode, run := "replay", func(ctx context.Context) (kernel.Result, error) { return c.rt.Drive(ctx, p.ExecutionID) }
	if st.Status == fold.StatusRunning {
		mode = "live"
		if st.Sequence > 0 {
			mode = "recover"
			run = func(ctx context.Context) (kernel.Result, error) { return c.rt.Recover(ctx, p.ExecutionID) }
		}
	}
	s, e := c.newSession(p.ExecutionID, true, mode)
	if e != nil {
		return nil, e
	}
	return c.launch(s, run)
}

func (c *Carrier) cancel(ctx context.Context, raw json.RawMessage) (any, *bridge.RPCError) {
	var p struct {
		ExecutionID string `json:"executionId"`
		Reason      string `json:"reason"`
	}
	if err := decodeStrict(raw, &p); err != nil {
		return nil, invalid(MethodCancel, err)
	}
	if p.ExecutionID == "" {
		return nil, rpcErr(CodeInvalidParams, "params", "execution.cancel: params.executionId is required", "field", "executionId")
	}
	if _, e := c.flowOf(ctx, p.ExecutionID); e != nil {
		return nil, e
	}
	if h := c.opts.Hooks.CancelTerminal; h != "" {
		if st, err := c.rt.State(ctx, p.ExecutionID); err == nil && st.Status == h {
			if c.forge(p.ExecutionID, forged{manifest.ExecutionCancelled, mustJSON(map[string]string{"reason": p.Reason})}) {
				return startResult{ExecutionID: p.ExecutionID, Status: fold.StatusCancelled}, nil
			}
		}
	}
	res, err := c.rt.Cancel(ctx, p.ExecutionID, p.Reason)
	if err != nil {
		return nil, toRPC(err)
	}
	c.mu.Lock()
	s := c.sessions[p.ExecutionID]
	c.mu.Unlock()
	if s != nil {
		s.cancel()
		<-s.done
	}
	return startResult{ExecutionID: p.ExecutionID, Status: res.Status}, nil
}

// StateResult is the answer of execution.getState.
type StateResult struct {
	ExecutionID    string          `json:"executionId"`
	Status         string          `json:"status"`
	Sequence       int64           `json:"sequence"`
	State          json.RawMessage `json:"state"`
	Canonical      string          `json:"canonical"`
	Driver         string          `json:"driver"` // "attached", "none"
	AwaitingDriver bool            `json:"awaitingDriver"`
	SuspendedOn    string          `json:"suspendedOn,omitempty"`
	Log            []spi.Envelope  `json:"log,omitempty"`
}

func (c *Carrier) getState(ctx context.Context, raw json.RawMessage) (any, *bridge.RPCError) {
	var p struct {
		ExecutionID string `json:"executionId"`
		IncludeLog  bool   `json:"includeLog"`
	}
	if err := decodeStrict(raw, &p); err != nil {
		return nil, invalid(MethodGetState, err)
	}
	if p.ExecutionID == "" {
		return nil, rpcErr(CodeInvalidParams, "params", "execution.getState: params.executionId is required", "field", "executionId")
	}
	st, err := c.rt.State(ctx, p.ExecutionID)
	if err != nil {
		return nil, toRPC(err)
	}
	if st.Sequence < 0 {
		return nil, rpcErr(CodeNotFound, "execution", fmt.Sprintf("execution %q has no log", p.ExecutionID), "executionId", p.ExecutionID)
	}
	canon, err := fold.CanonicalState(st)
	if err != nil {
		return nil, toRPC(err)
	}
	out := StateResult{ExecutionID: p.ExecutionID, Status: st.Status, Sequence: st.Sequence, State: canon, Canonical: string(canon), Driver: "none"}
	c.mu.Lock()
	s := c.sessions[p.ExecutionID]
	c.mu.Unlock()
	if s != nil && s.isAttached() {
		out.Driver = "attached"
	}
	out.AwaitingDriver = st.Status == fold.StatusRunning && out.Driver == "none"
	if st.Status == fold.StatusSuspended {
		var on struct {
			On string `json:"on"`
		}
		_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
		out.SuspendedOn = on.On
	}
	if p.IncludeLog {
		if c.store == nil {
			return nil, rpcErr(CodeInvalidParams, "params", "execution.getState: this carrier has no store to read the log from", "field", "includeLog")
		}
		evs, err := c.store.Read(ctx, p.ExecutionID)
		if err != nil {
			return nil, toRPC(err)
		}
		out.Log = evs
	}
	return c.slipState(out), nil
}
