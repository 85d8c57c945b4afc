package carrier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// session is one live run of an execution and the driver that holds it.
type session struct {
	execID string
	mode   string // live, recover, replay

	calls     chan *call
	entered   chan struct{}
	enterOnce sync.Once
	done      chan struct{}
	res       kernel.Result
	err       error
	cancel    context.CancelFunc

	tok      sync.Mutex // guards token, attached
	token    string
	attached bool
	lastSeen atomic.Int64 // unix nanos of the driver's last call

	busyAsSyscall bool   // Hooks.BusyScopeAsSyscall
	slip          string // Hooks.Slip

	rmu    sync.Mutex            // guards routes
	routes map[string]chan *call // the open parallel branches' feeds, by branch path (I-WIRE-11)

	mu         sync.Mutex   // one driver call at a time
	transcript []entry      // the answers of this run, in call order (I-WIRE-4)
	cursor     int          // the next transcript entry a re-driving driver is served
	redrive    atomic.Bool  // a driver re-attached: its next call starts the transcript over
	answered   atomic.Int64 // len(transcript), readable without mu
}

// entry is one answered call of a run.
type entry struct {
	name   string
	branch string // the branch path ("" = the flow's top)
	args   json.RawMessage
	result any
	err    *bridge.RPCError
}

// call is a driver call handed to the flow goroutine.
type call struct {
	name   string
	args   json.RawMessage
	finish *finish
	reply  chan reply
}

type finish struct {
	output json.RawMessage
	err    string
}

type reply struct {
	out json.RawMessage
	err error
}

func (s *session) isAttached() bool {
	s.tok.Lock()
	defer s.tok.Unlock()
	return s.attached
}

func (s *session) touch() { s.lastSeen.Store(time.Now().UnixNano()) }

// newSession registers a run of execID; a live run already there is a fenced driver.
func (c *Carrier) newSession(execID string, attach bool, mode string) (*session, *bridge.RPCError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.sessions[execID]; old != nil {
		return nil, rpcErr(CodeFenced, "fenced", fmt.Sprintf("execution %q has a live run held by another driver", execID), "executionId", execID)
	}
	if e := c.admitRun(); e != nil {
		return nil, e
	}
	s := &session{execID: execID, mode: mode, calls: make(chan *call), entered: make(chan struct{}), done: make(chan struct{}), routes: map[string]chan *call{},
		busyAsSyscall: c.opts.Hooks.BusyScopeAsSyscall, slip: c.opts.Hooks.Slip}
	if attach {
		s.token, s.attached = c.opts.Tokens(), true
	}
	s.touch()
	c.sessions[execID] = s
	return s, nil
}

// launch runs fn (a kernel call that runs the execution's flow) in the background and answers
// once the flow is entered (the driver may now make syscalls) or the call ended.
func (c *Carrier) launch(s *session, fn func(ctx context.Context) (kernel.Result, error)) (any, *bridge.RPCError) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() {
		res, err := fn(ctx)
		s.tok.Lock()
		c.retire(s.execID, s.token)
		s.tok.Unlock()
		c.mu.Lock()
		if c.sessions[s.execID] == s {
			delete(c.sessions, s.execID)
		}
		c.mu.Unlock()
		s.res, s.err = res, err
		close(s.done)
		cancel()
	}()
	select {
	case <-s.entered:
		s.tok.Lock()
		defer s.tok.Unlock()
		return startResult{ExecutionID: s.execID, Status: fold.StatusRunning, Driver: s.token, Mode: s.mode, AwaitingDriver: !s.attached}, nil
	case <-s.done:
		if s.err != nil {
			return nil, toRPC(s.err)
		}
		return ended(s), nil
	}
}

// ended is the answer of a call whose run ended.
func ended(s *session) startResult {
	r := startResult{ExecutionID: s.execID, Status: s.res.Status, SuspendedOn: s.res.SuspendedOn}
	if s.res.Output != nil {
		r.Output = s.res.Output
	}
	if s.res.Error != nil {
		r.Error = s.res.Error
	}
	return r
}

// reattach hands a live run to a driver: the holder of its token (a reconnect), any driver when
// none is attached, or a new driver once the holder's lease lapsed with no call in flight. The
// driver re-drives from the top: the run's transcript answers what it already answered.
func (c *Carrier) reattach(s *session, token string) (any, *bridge.RPCError) {
	s.tok.Lock()
	stolen := false // Hooks.NoFencing: a second driver took the seat, the first still drives
	switch {
	case s.attached && token != "" && token == s.token:
	case !s.attached:
		s.token, s.attached = c.opts.Tokens(), true
	case c.opts.Hooks.NoFencing:
		s.token, stolen = c.opts.Tokens(), true
	default:
		lapsed := time.Since(time.Unix(0, s.lastSeen.Load())) > c.opts.Lease
		if !lapsed || !s.mu.TryLock() {
			s.tok.Unlock()
			return nil, rpcErr(CodeFenced, "fenced", fmt.Sprintf("execution %q is driven by another driver", s.execID), "executionId", s.execID)
		}
		s.mu.Unlock()
		c.retire(s.execID, s.token)
		s.token = c.opts.Tokens()
	}
	tok := s.token
	s.tok.Unlock()
	if forget := c.opts.Hooks.ReattachForgets; forget != "" {
		s.mu.Lock()
		for i, en := range s.transcript {
			if forget == "failed" && en.err != nil || forget == "emit" && (en.name == "emit" || en.name == "stream" || en.name == "ui") {
				s.transcript = s.transcript[:i]
				s.answered.Store(int64(i))
				break
			}
		}
		s.mu.Unlock()
	}
	if !stolen {
		s.redrive.Store(true) // a call in flight finishes first; the next call starts over
	}
	s.touch()
	return startResult{ExecutionID: s.execID, Status: fold.StatusRunning, Driver: tok, Mode: s.mode}, nil
}

// driven returns the live run the driver holds for a driver method (a syscall or
// execution.complete): a missing token is bad params (-32602), an execution with no log -32003,
// and any token but the holder's is fenced (-32002).
func (c *Carrier) driven(ctx context.Context, method, execID, token string) (*session, *bridge.RPCError) {
	if execID == "" {
		return nil, rpcErr(CodeInvalidParams, "params", method+": params.executionId is required", "field", "executionId")
	}
	h := c.opts.Hooks
	if token == "" && !h.MissingDriverFenced && h.UnfencedMethod != method {
		return nil, rpcErr(CodeInvalidParams, "params", method+": params.driver is required (the token execution.start, resume, attach or deliver gave)", "field", "driver")
	}
	c.mu.Lock()
	s := c.sessions[execID]
	stale := h.StaleTokenAccepted && slices.Contains(c.stale[execID], token)
	c.mu.Unlock()
	if s == nil {
		if flowID, err := c.rt.FlowID(ctx, execID); err == nil && flowID == "" {
			return nil, rpcErr(CodeNotFound, "execution", fmt.Sprintf("execution %q has no log", execID), "executionId", execID)
		}
		return nil, rpcErr(CodeFenced, "not-driver", fmt.Sprintf("execution %q has no live run this caller drives (execution.attach first)", execID), "executionId", execID)
	}
	s.tok.Lock()
	ok := s.attached && (token == s.token || stale || h.UnfencedMethod == method)
	s.tok.Unlock()
	if !ok {
		return nil, rpcErr(CodeFenced, "not-driver", fmt.Sprintf("execution %q is not driven by this driver token", execID), "executionId", execID, "field", "driver")
	}
	return s, nil
}

// retire remembers a seat's token once another holds the execution (Hooks.StaleTokenAccepted).
func (c *Carrier) retire(execID, token string) {
	if !c.opts.Hooks.StaleTokenAccepted || token == "" {
		return
	}
	c.mu.Lock()
	c.stale[execID] = append(c.stale[execID], token)
	c.mu.Unlock()
}

// flowFn is the code of every wire flow: it hands the driver's calls to the kernel in order.
func (c *Carrier) flowFn(kc *kernel.Context, _ json.RawMessage) (any, error) {
	c.mu.Lock()
	s := c.sessions[kc.ExecutionID()]
	c.mu.Unlock()
	if s == nil { // resumed by an in-process caller: no driver will come through this carrier
		<-kc.Context().Done()
		return nil, kc.Context().Err()
	}
	s.enterOnce.Do(func() { close(s.entered) })
	return c.serve(kc, s, "", s.calls)
}

// syscallResult is the answer of a syscall method: its value, or that the run parked on it.
type syscallResult struct {
	Value       json.RawMessage `json:"value"`
	Parked      bool            `json:"parked,omitempty"`
	Status      string          `json:"status,omitempty"`
	SuspendedOn string          `json:"suspendedOn,omitempty"`
	ContinuedTo string          `json:"continuedTo,omitempty"`
}

type syscallParams struct {
	ExecutionID string          `json:"executionId"`
	Driver      string          `json:"driver"`
	Args        json.RawMessage `json:"args"`
	Branch      []int           `json:"branch"`
}

// decodeSyscallParams decodes a syscall's params: a walk of the members when they are the plain
// ones a driver sends, else the strict decoder (whose error names the field).
func decodeSyscallParams(raw json.RawMessage) (syscallParams, error) {
	var p syscallParams
	plain := eachMember(raw, func(k, v []byte) bool {
		ok := true
		switch string(k) {
		case "executionId":
			p.ExecutionID, ok = plainString(v)
		case "driver":
			p.Driver, ok = plainString(v)
		case "args":
			p.Args = append(json.RawMessage(nil), v...)
		default: // branch, or anything the strict decoder must judge
			ok = false
		}
		return ok
	})
	if plain {
		return p, nil
	}
	p = syscallParams{}
	err := decodeStrict(raw, &p)
	return p, err
}

func (c *Carrier) syscall(ctx context.Context, m Method, raw json.RawMessage) (any, *bridge.RPCError) {
	p, err := decodeSyscallParams(raw)
	if err != nil {
		return nil, invalid(m.Name, err)
	}
	// What the request alone refuses comes first (-32602), then the execution (-32003), the
	// driver (-32002) and the run (docs/wire.md, "Errors": precedence, I-WIRE-41).
	h := c.opts.Hooks
	argErr := checkArgs(m.Syscall, p.Args)
	if h.ArgsToKernel && argErr != nil && !strings.Contains(argErr.Msg, "unknown field") {
		argErr = nil
	}
	forging := argErr != nil && h.ForgedFactsThrough && m.Kind == "unary" && m.Syscall == "emit"
	if h.DriverBeforeParams {
		if _, e := c.driven(ctx, m.Name, p.ExecutionID, p.Driver); e != nil {
			return nil, e
		}
	}
	if argErr != nil && !forging {
		return nil, rpcErr(CodeInvalidParams, "params", m.Name+": "+argErr.Msg, "field", argErr.Field)
	}
	s, e := c.driven(ctx, m.Name, p.ExecutionID, p.Driver)
	if e != nil {
		return nil, e
	}
	res, done, args := c.syscallDefect(p.ExecutionID, m.Syscall, p.Args, p.Branch)
	if done {
		return res, nil
	}
	if forging {
		if c.forgeThrough(p.ExecutionID, p.Args, nil) {
			return syscallResult{Value: json.RawMessage("null")}, nil
		}
		return nil, rpcErr(CodeInvalidParams, "params", m.Name+": "+argErr.Msg, "field", argErr.Field)
	}
	return c.do(s, m.Syscall, args, p.Branch)
}

// do makes one call on the run: served from the transcript when a re-driving driver has not yet
// caught up, else handed to the kernel.
func (c *Carrier) do(s *session, name string, args json.RawMessage, branch []int) (any, *bridge.RPCError) {
	fin, e := parallelCheck(name, args, branch) // what the request alone refuses comes first
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.touch()
	if s.redrive.Swap(false) {
		s.cursor = 0
	}
	key := pathKey(branch)
	if s.cursor < len(s.transcript) {
		en := s.transcript[s.cursor]
		if en.name != name || en.branch != key || !spi.SameJSON(normArgs(en.args), normArgs(args)) {
			return nil, rpcErr(CodeReplayDivergence, "divergence", fmt.Sprintf("re-drive diverged at call %d: the run answered %s here, the driver asks %s", s.cursor, en.name, name),
				"index", s.cursor, "want", en.name, "got", name)
		}
		s.cursor++
		return en.result, en.err
	}
	if res, ok := s.slipCall(name, args, branch); ok {
		return res, nil
	}
	ch, rerr := s.route(branch)
	if rerr != nil {
		return nil, rerr
	}
	cl := &call{name: name, args: args, finish: fin, reply: make(chan reply, 1)}
	select {
	case ch <- cl:
	case <-s.done:
		return c.afterEnd(s)
	}
	select {
	case rp := <-cl.reply:
		en := entry{name: name, branch: key, args: args}
		if rp.err != nil && c.opts.Hooks.ForgedFactsThrough && c.forgeThrough(s.execID, args, rp.err) {
			rp.err = nil
		}
		if rp.err != nil {
			en.err = toRPC(rp.err)
		} else {
			v := rp.out
			if v == nil {
				v = json.RawMessage("null")
			}
			en.result = syscallResult{Value: v}
		}
		s.transcript = append(s.transcript, en)
		s.answered.Store(int64(len(s.transcript)))
		s.cursor++
		return en.result, en.err
	case <-s.done:
		return c.afterEnd(s)
	}
}

// afterEnd answers a syscall during which the run ended: it parked (suspend, sleep, a wait) or
// continued as new; an error of the run (a replay divergence, a store failure) is returned.
func (c *Carrier) afterEnd(s *session) (any, *bridge.RPCError) {
	if s.err != nil {
		return nil, toRPC(s.err)
	}
	switch s.res.Status {
	case fold.StatusSuspended, fold.StatusContinued:
		return syscallResult{Value: json.RawMessage("null"), Parked: true, Status: s.res.Status, SuspendedOn: s.res.SuspendedOn, ContinuedTo: s.res.ContinuedTo}, nil
	}
	return nil, rpcErr(CodeNotRunnable, "ended", fmt.Sprintf("execution %q: the run ended (%s)", s.execID, s.res.Status), "status", s.res.Status)
}

func normArgs(a json.RawMessage) json.RawMessage {
	if len(a) == 0 {
		return json.RawMessage("{}")
	}
	return a
}

func (c *Carrier) complete(ctx context.Context, raw json.RawMessage) (any, *bridge.RPCError) {
	var p struct {
		ExecutionID string          `json:"executionId"`
		Driver      string          `json:"driver"`
		Output      json.RawMessage `json:"output"`
		Error       *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := decodeStrict(raw, &p); err != nil {
		return nil, invalid(MethodComplete, err)
	}
	if p.Error != nil && p.Error.Message == "" {
		return nil, rpcErr(CodeInvalidParams, "params", "execution.complete: params.error.message must be a non-empty string", "field", "error.message")
	}
	if p.Error != nil && p.Output != nil && !c.opts.Hooks.CompleteBoth { // I-WIRE-44: a flow returns an output or fails, never both
		return nil, rpcErr(CodeInvalidParams, "params", "execution.complete: give params.output (the flow returned) or params.error (it failed), not both", "field", "error")
	}
	s, e := c.driven(ctx, MethodComplete, p.ExecutionID, p.Driver)
	if e != nil {
		return nil, e
	}
	if res, done := c.replayCompletes(ctx, s, p.Output, p.Error != nil); done {
		return res, nil
	}
	if e := c.replayOfCancel(ctx, s); e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.redrive.Swap(false) {
		s.cursor = 0
	}
	if s.cursor < len(s.transcript) {
		return nil, rpcErr(CodeReplayDivergence, "divergence", fmt.Sprintf("re-drive diverged at call %d: the run answered %s here, the driver completes", s.cursor, s.transcript[s.cursor].name),
			"index", s.cursor, "want", s.transcript[s.cursor].name, "got", "complete")
	}
	if _, e := s.route(nil); e != nil { // the flow's branches are open: it cannot return yet
		return nil, e
	}
	f := &finish{output: p.Output}
	if p.Output == nil {
		f.output = json.RawMessage("null")
	}
	if p.Error != nil {
		f.err = p.Error.Message
	}
	cl := &call{finish: f, reply: make(chan reply, 1)}
	select {
	case s.calls <- cl:
	case <-s.done:
	}
	select {
	case rp := <-cl.reply:
		if rp.err != nil { // the join is due: the flow's next call is syscall.parallel {"join": true}
			return nil, toRPC(rp.err)
		}
	case <-s.done:
	}
	<-s.done
	if s.err != nil {
		return nil, toRPC(s.err)
	}
	return ended(s), nil
}

// replayOfCancel refuses the complete of a read-only replay of a cancelled execution (I-WIRE-42):
// the log's end is the cancel, which no return of the flow reproduces, so any complete diverges;
// the seat ends, nothing is appended.
func (c *Carrier) replayOfCancel(ctx context.Context, s *session) *bridge.RPCError {
	if s.mode != "replay" || c.opts.Hooks.ReplayCancelCompletes {
		return nil
	}
	st, err := c.rt.State(ctx, s.execID)
	if err != nil || st.Status != fold.StatusCancelled {
		return nil
	}
	s.cancel()
	<-s.done
	return rpcErr(CodeReplayDivergence, "divergence", fmt.Sprintf("execution %q: replay diverged: its log ends cancelled, which no complete of the flow reproduces", s.execID),
		"eventType", manifest.ExecutionCancelled)
}

// toRPC maps a kernel error to its wire error.
func toRPC(err error) *bridge.RPCError {
	var (
		tf   *kernel.TypedFailure
		sf   *kernel.StepFailedError
		sc   *kernel.StepCancelledError
		qe   *kernel.QuotaExceededError
		rr   *ingress.ResumeRefusedError
		rv   *ingress.ResumePayloadValidationError
		er   *userspace.EmitRefusedError
		rd   *kernel.ReplayDivergenceError
		nr   *kernel.NotRunnableError
		te   *kernel.TerminalError
		ex   *kernel.ExecutionExistsError
		uf   *kernel.UnknownFlowError
		se   *kernel.SyscallError
		sd   *kernel.SyscallDisabledError
		us   *kernel.UnknownSyscallError
		de   *kernel.DeciderError
		ft   *kernel.FlowTimeoutError
		stor *kernel.StoreError
	)
	if e, ok := deliveryRefused(err); ok {
		return e
	}
	switch {
	case errors.As(err, new(*kernel.BranchError)):
		e, _ := branchRPC(err)
		return e
	case errors.As(err, &tf):
		var payload any = tf.Payload
		if raw, ok := tf.Payload.(json.RawMessage); ok {
			payload = raw
		}
		return rpcErr(CodeTypedFailure, "typed-failure", err.Error(), "channel", tf.Channel, "payload", payload)
	case errors.As(err, &qe):
		return rpcErr(CodeQuotaExceeded, "quota-exceeded", err.Error(), "stepId", qe.StepID, "dimension", qe.Dimension, "limit", qe.Limit, "used", qe.Used)
	case errors.As(err, &sf):
		return rpcErr(CodeStepFailed, "step-failed", err.Error(), "stepId", sf.StepID, "attempt", sf.Attempt, "timeout", sf.Timeout, "degraded", sf.Degraded, "message", sf.Message)
	case errors.As(err, &sc):
		return rpcErr(CodeStepFailed, "step-cancelled", err.Error(), "stepId", sc.StepID)
	case errors.As(err, &rr):
		return rpcErr(CodeRefused, "resume-refused", err.Error())
	case errors.As(err, &rv):
		return rpcErr(CodeRefused, "resume-invalid", err.Error())
	case errors.As(err, &er):
		return rpcErr(CodeRefused, "emit-refused", err.Error())
	case errors.As(err, &rd):
		return rpcErr(CodeReplayDivergence, "divergence", err.Error(), "eventType", rd.EventType)
	case errors.As(err, &nr):
		return rpcErr(CodeNotRunnable, "not-runnable", err.Error(), "status", nr.Status)
	case errors.As(err, &te):
		return rpcErr(CodeNotRunnable, "terminal", err.Error(), "status", te.Status)
	case errors.As(err, &ex):
		return rpcErr(CodeAlreadyExists, "exists", err.Error(), "executionId", ex.ExecutionID)
	case errors.As(err, &uf):
		return rpcErr(CodeNotFound, "flow", err.Error(), "flowId", uf.FlowID)
	case errors.As(err, &sd):
		return rpcErr(CodeDisabled, "disabled", err.Error(), "feature", sd.Feature)
	case errors.As(err, &us):
		return rpcErr(CodeMethodNotFound, "syscall", err.Error())
	case errors.As(err, &se):
		return rpcErr(CodeSyscallError, "syscall", err.Error(), "syscall", se.Syscall)
	case errors.As(err, &de):
		return rpcErr(CodeStepFailed, "decider", err.Error())
	case errors.Is(err, kernel.ErrNotFound), errors.Is(err, spi.ErrNotFound):
		return rpcErr(CodeNotFound, "execution", err.Error())
	case errors.As(err, &ft):
		return rpcErr(CodeNotRunnable, "abandoned", err.Error())
	case errors.As(err, &stor):
		if errors.Is(stor.Err, ErrInjectedCrash) {
			return rpcErr(CodeInternalError, "crash", err.Error())
		}
		if errors.Is(stor.Err, spi.ErrConflict) || errors.Is(stor.Err, spi.ErrFenced) {
			return rpcErr(CodeFenced, "fenced", err.Error())
		}
		return rpcErr(CodeInternalError, "store", err.Error())
	}
	return rpcErr(CodeInternalError, "internal", err.Error())
}

// replayCompletes is the ReplayCompletes defect: the complete of a read-only replay whose output
// differs from the log's is appended, the run ended.
func (c *Carrier) replayCompletes(ctx context.Context, s *session, output json.RawMessage, failed bool) (any, bool) {
	h := c.opts.Hooks.ReplayCompletes
	if h == "" || s.mode != "replay" || failed {
		return nil, false
	}
	st, err := c.rt.State(ctx, s.execID)
	if err != nil {
		return nil, false
	}
	finished := st.Status == fold.StatusCompleted || st.Status == fold.StatusFailed
	if h == "finished" && !finished || h == "parked" && st.Status != fold.StatusSuspended {
		return nil, false
	}
	if recorded, ok := st.Variables.Values[fold.VarOutput]; ok && spi.SameJSON(recorded, payloadOr(output)) {
		return nil, false
	}
	if !c.forge(s.execID, forged{manifest.ExecutionCompleted, mustJSON(map[string]json.RawMessage{"output": payloadOr(output)})}) {
		return nil, false
	}
	s.cancel()
	<-s.done
	return startResult{ExecutionID: s.execID, Status: fold.StatusCompleted, Output: payloadOr(output)}, true
}
