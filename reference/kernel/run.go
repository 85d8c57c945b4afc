package kernel

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// frameRec is what the replay needs of one step: its last recorded lifecycle.
type frameRec struct {
	status  string // fold frame status
	attempt int
	output  json.RawMessage
	channel string // typed failure channel ("" = untyped)
	payload json.RawMessage
	message string
	timeout bool
	// degradedFrom is the channel of the typed failure an untyped one degraded from (its error's
	// channel member), for the ServeDegradedTyped defect alone
	degradedFrom string
}

// newEvent is an envelope before the run gives it an id, sequence and timestamp.
type newEvent struct {
	eventType string
	payload   json.RawMessage
	metadata  json.RawMessage
	emit      bool // a flow-level emit (the only kind a read-only replay may drop)
}

// run is one execution of a flow function over a log: the replay index built from the folded
// state at the start, the emit-serving counters of spec §3, and the single writer of the log.
type run struct {
	rt     *Runtime
	execID string
	flow   FlowDef
	ctx    context.Context // store calls and effects; cancelled when the run is abandoned
	cancel context.CancelFunc
	fence  int64

	mu       sync.Mutex
	next     int64 // next free sequence
	closed   error // set once the run may append no more (store failure, abandoned)
	appended []spi.Envelope
	readOnly bool // parked or terminal execution: replay without writing

	// replay index (from the fold at the start, updated by this run's own appends)
	startStatus string
	frames      map[string]frameRec   // frames this run wrote (overlay)
	baseFrames  map[string]fold.Frame // frames of the folded log (never written)
	decisions   map[string]json.RawMessage
	resumes     []json.RawMessage
	waitAnswers map[string]json.RawMessage
	resources   map[string]float64
	parkedOn    string          // the gate the log is parked on at the start ("" = not parked)
	recordedOut json.RawMessage // _output of a completed log (what a read-only replay must return)
	recordedTo  string          // _continuedTo of a continued log (what a read-only replay's continueAsNew answers)

	// emit serving (spec §3)
	gateIdx   int              // suspend points consumed so far in this run
	segment   int              // gate passthroughs consumed at this point
	flowEmits map[string]int64 // logged stamped emits per digest (the fold's _flowEmits + own stamps)
	emitN     map[string]int64 // emits of each digest made so far in this run
	segLive   bool             // a step or decision of the current segment ran live in this run
	unserved  bool             // an earlier step or decider ended in an outcome a re-run does not serve
	inFlight  int              // own effects and deciders executing

	waitIdx   int            // wait syscalls (receive/select) made so far
	budgetIdx map[string]int // negotiateBudget calls per dimension

	parked      bool
	parkedGate  string
	continuedTo string
}

func newRun(rt *Runtime, ctx context.Context, execID string, flow FlowDef, st fold.State) *run {
	rctx, cancel := context.WithCancel(ctx)
	r := &run{
		rt: rt, execID: execID, flow: flow, ctx: rctx, cancel: cancel,
		next:        st.Sequence + 1,
		startStatus: st.Status,
		frames:      map[string]frameRec{},
		decisions:   make(map[string]json.RawMessage, len(st.Variables.Decisions)),
		resumes:     st.Variables.ResumePayloads,
		waitAnswers: map[string]json.RawMessage{},
		resources:   map[string]float64{},
		flowEmits:   map[string]int64{},
		emitN:       map[string]int64{},
		budgetIdx:   map[string]int{},
	}
	r.baseFrames = st.Frames // read lazily: a replay touches each frame once (frame)
	for id, d := range st.Variables.Decisions {
		r.decisions[id] = d.Choice
		if rt.cfg.Hooks.DecisionServesEntry {
			r.decisions[id] = obj("choice", d.Choice, "context", d.Context, "policy", d.Policy, "seq", d.Seq)
		}
	}
	for d, n := range st.Variables.FlowEmits {
		r.flowEmits[d] = n
	}
	for k, v := range st.Variables.WaitAnswers {
		r.waitAnswers[k] = v
	}
	for k, v := range st.Variables.Resources {
		r.resources[k] = v
		if rt.cfg.Hooks.ResourcesRunOnly {
			delete(r.resources, k)
		}
	}
	if st.Status == fold.StatusSuspended {
		r.parkedOn = gateOf(st)
	}
	if st.Status == fold.StatusCompleted {
		r.recordedOut = st.Variables.Values[fold.VarOutput]
	}
	if st.Status == fold.StatusContinued {
		_ = json.Unmarshal(st.Variables.Values[fold.VarContinuedTo], &r.recordedTo)
	}
	return r
}

// frame returns the step's last recorded lifecycle: this run's own record, else the folded log's.
func (r *run) frame(id string) (frameRec, bool) {
	if f, ok := r.frames[id]; ok {
		return f, true
	}
	if f, ok := r.baseFrames[id]; ok {
		return frameFromFold(f), true
	}
	return frameRec{}, false
}

func frameFromFold(f fold.Frame) frameRec {
	rec := frameRec{status: f.Status, attempt: 1, output: f.Output, payload: f.ErrorPayload}
	if n, err := strconv.Atoi(string(f.Attempt)); err == nil {
		rec.attempt = n
	}
	var e struct {
		Message string `json:"message"`
		Timeout bool   `json:"timeout"`
		Channel string `json:"channel"`
	}
	if json.Unmarshal(f.Error, &e) == nil {
		rec.message, rec.timeout, rec.degradedFrom = e.Message, e.Timeout, e.Channel
	}
	if len(f.ErrorChannel) > 0 {
		var ch string
		if json.Unmarshal(f.ErrorChannel, &ch) == nil {
			rec.channel = ch
		}
	}
	return rec
}

// gateOf returns _suspendedOn.on of a parked state.
func gateOf(st fold.State) string {
	var on struct {
		On string `json:"on"`
	}
	_ = json.Unmarshal(st.Variables.Values[fold.VarSuspendedOn], &on)
	return on.On
}

// appendLocked appends events as one atomic batch. The caller holds r.mu. A store failure closes
// the run (nothing more is written by it) and is returned.
func (r *run) appendLocked(evs ...newEvent) error {
	if r.closed != nil {
		return r.closed
	}
	if r.readOnly {
		for _, e := range evs {
			if !e.emit {
				r.closed = &ReplayDivergenceError{ExecutionID: r.execID, EventType: e.eventType}
				return r.closed
			}
		}
		return nil // a read-only replay never writes; emits are simply not re-appended
	}
	envs := make([]spi.Envelope, len(evs))
	for i, e := range evs {
		envs[i] = spi.Envelope{
			ID:          r.rt.cfg.NewID(),
			WorkflowID:  r.flow.ID,
			ExecutionID: r.execID,
			EventType:   e.eventType,
			Sequence:    r.next + int64(i),
			Timestamp:   r.rt.cfg.Now(),
			Payload:     e.payload,
			Metadata:    e.metadata,
		}
	}
	if err := r.rt.cfg.Store.Append(r.ctx, r.execID, envs, spi.AppendOptions{Fence: r.fence}); err != nil {
		r.closed = &StoreError{ExecutionID: r.execID, Op: "append", Err: err}
		return r.closed
	}
	r.next += int64(len(envs))
	r.appended = append(r.appended, envs...)
	return nil
}

// mustAppend appends or unwinds the calling flow goroutine.
func (r *run) mustAppend(evs ...newEvent) {
	if err := r.appendLocked(evs...); err != nil {
		panic(abortSignal{err})
	}
}

// close stops the run from writing again (abandoned or finished).
func (r *run) close(err error) {
	r.mu.Lock()
	if r.closed == nil {
		r.closed = err
	}
	r.mu.Unlock()
	r.cancel()
}

// abortSignal unwinds a flow whose run can no longer write.
type abortSignal struct{ err error }

// parkSignal unwinds a flow that parked.
type parkSignal struct{}

// continueSignal unwinds a flow that continued as new.
type continueSignal struct{}

// rawJSON marshals v canonically; a value with no JSON form is an error.
func rawJSON(v any) (json.RawMessage, error) {
	b, err := fold.Canonical(v)
	return json.RawMessage(b), err
}

// obj builds a JSON object payload in key order; nil values are omitted.
func obj(kv ...any) json.RawMessage {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			continue
		}
		if raw, ok := kv[i+1].(json.RawMessage); ok && raw == nil {
			continue
		}
		m[kv[i].(string)] = kv[i+1]
	}
	b, err := fold.Canonical(m)
	if err != nil {
		panic("kernel: internal payload has no JSON form: " + err.Error())
	}
	return b
}

var kernelMeta = json.RawMessage(`{"kernel":true}`)

func isKernelFact(eventType string) bool {
	switch eventType {
	case manifest.DecisionRecorded, manifest.EffectInDoubt:
		return true
	}
	return len(eventType) > 5 && (eventType[:5] == "STEP_" || (len(eventType) > 10 && eventType[:10] == "EXECUTION_"))
}

// spiEnvelope builds the first envelope of another execution (continueAsNew's start).
func spiEnvelope(r *run, execID, eventType string, payload, metadata json.RawMessage) []spi.Envelope {
	return []spi.Envelope{{ID: r.rt.cfg.NewID(), WorkflowID: r.flow.ID, ExecutionID: execID, EventType: eventType,
		Sequence: 0, Timestamp: r.rt.cfg.Now(), Payload: payload, Metadata: metadata}}
}
