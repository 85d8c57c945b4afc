package fold

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/loom-kernel/loom-conform/spi"
)

// Fold folds events onto snapshot (nil: the empty state) as the given schema profile and returns
// the new state (spec §3, §4; DESIGN §4). It is pure: it reads no clock, randomness or
// environment, and it never writes to the snapshot or the events (copy-on-write at the pass
// boundary, owned mutation inside the pass, so the cost is O(len(events)) plus one copy of the
// snapshot's containers).
//
// The events must be one execution's envelopes with dense sequences continuing the snapshot's
// (the first has sequence snapshot.Sequence+1, or 0), each with a JSON payload and an optional
// metadata object; anything else is an *InputError naming the envelope index and field. Payload
// content never makes the fold fail: a payload a handler cannot read folds as a no-op.
func Fold(p Profile, snapshot *State, events []spi.Envelope) (State, error) {
	f := newFolder(p, snapshot, false, len(events))
	for i := range events {
		if err := f.add(i, &events[i]); err != nil {
			return State{}, err
		}
	}
	return f.finish(), nil
}

// FoldBytes decodes a log (as DecodeLogBytes) and folds it (as Fold) in one pass: each payload is
// validated once, by the decoder, and folded while its bytes are still in cache. The result shares
// raw's bytes, which the caller must not modify afterwards.
func FoldBytes(p Profile, snapshot *State, raw []byte) (State, error) {
	f := newFolder(p, snapshot, true, len(raw)/256)
	if err := decodeBytes(raw, true, f.add); err != nil {
		return State{}, err
	}
	return f.finish(), nil
}

// FoldReader is FoldBytes over a stream (a JSON array or NDJSON). It never builds the decoded log:
// memory is the state, the payloads it still references (each envelope's payload and metadata are
// copied into an allocation of their own, so a value the state keeps pins one payload, not its
// neighbours), and at most opt.MaxEnvelopeBytes for the envelope being read.
func FoldReader(p Profile, snapshot *State, r io.Reader, opt DecodeOptions) (State, error) {
	f := newFolder(p, snapshot, true, int(min(opt.SizeHint, maxFramesHint*4*256)/256))
	if err := decodeReader(r, opt, true, f.add); err != nil {
		return State{}, err
	}
	return f.finish(), nil
}

// folder folds envelopes one at a time, checking that they are one execution's dense sequence.
type folder struct {
	s      State
	ps     pass
	execID string
}

// maxFramesHint bounds the frame table FoldReader sizes from DecodeOptions.SizeHint: a long log
// may fold to few frames, and the table must not cost memory in proportion to the log.
const maxFramesHint = 1 << 16

// newFolder starts a pass. events estimates the log's length: the frames map of a fold from
// nothing is sized for it (a step writes about four envelopes), so it does not grow by rehashing.
func newFolder(p Profile, snapshot *State, trusted bool, events int) *folder {
	f := &folder{}
	if snapshot == nil {
		f.s = Empty()
		if events >= 64 {
			f.s.Frames = make(map[string]Frame, events/4)
		}
	} else {
		f.s = snapshot.clone()
	}
	f.ps = pass{p: p, s: &f.s, trusted: trusted}
	return f
}

// finish completes the pass and returns the state.
func (f *folder) finish() State {
	f.ps.flushFrame()
	f.ps.flushResources()
	return f.s
}

func (f *folder) add(i int, e *spi.Envelope) error {
	if len(e.Payload) == 0 {
		return inputErr(i, "payload", "missing")
	}
	if want := f.s.Sequence + 1; e.Sequence != want {
		if err := f.shapeErr(i, e); err != nil {
			return err
		}
		err := inputErr(i, "sequence", "got %d, want %d (sequences are dense per execution and continue the snapshot)", e.Sequence, want)
		err.rule = KindSequence
		return err
	}
	if i == 0 {
		f.execID = e.ExecutionID
	} else if e.ExecutionID != f.execID {
		if err := f.shapeErr(i, e); err != nil {
			return err
		}
		err := inputErr(i, "executionId", "got %q, want %q (one execution per fold)", e.ExecutionID, f.execID)
		err.rule = KindMixedExecutions
		return err
	}
	return f.ps.apply(i, e)
}

// shapeErr reports what apply would refuse in the envelope's metadata or payload, so that a
// malformed envelope is refused as malformed before its sequence or executionId is judged
// (I-FOLD-23) on every entry point: a decoder already checked both, Fold checks them lazily.
func (f *folder) shapeErr(i int, e *spi.Envelope) error {
	if f.ps.trusted {
		return nil
	}
	if _, err := readMeta(e.Metadata, false); err != nil {
		return inputErr(i, "metadata", "%v", err)
	}
	if err := validJSON(e.Payload); err != nil {
		return inputErr(i, "payload", "%v", err)
	}
	return nil
}

// pass is one fold pass: it owns s (a clone) and mutates it in place.
type pass struct {
	p Profile
	s *State
	// payload is the envelope payload being folded; checked is set once a scan of it has
	// validated all of it, so the payload is read once, not twice.
	payload []byte
	checked bool
	// trusted is set when a validating decoder already read the envelopes (FoldBytes).
	trusted bool
	// cur is the frame last written, not yet stored in s.Frames (see putFrame).
	cur    Frame
	curSet bool
	// The _resources dimensions accumulate here during the pass (no map operation per
	// RESOURCE_METERED) and are written back by flushResources.
	res                 [len(resourceDimensions)]float64
	resHas              [len(resourceDimensions)]bool
	resLoaded, resDirty bool
	// Quarantine queues (see quarantine.go): qOwned marks the topics whose queue this pass
	// allocated, so it appends and releases in place; qIDs indexes a long queue's message ids.
	qOwned map[string]bool
	qIDs   map[string]map[string]struct{}
}

// meta is what the fold reads from an envelope's metadata (DESIGN §3.1). seal is ignored (1.25.0).
type meta struct {
	flowEmit    []byte
	hasFlowEmit bool
	kernel      bool
	forkChain   []byte
	forkedBy    []byte
}

// readMeta reads and validates an envelope's metadata (absent, null or an object).
func readMeta(raw []byte, trusted bool) (meta, error) {
	var m meta
	if len(raw) == 0 || isNull(raw) {
		if len(raw) > 0 {
			return m, validJSON(raw)
		}
		return m, nil
	}
	ok, err := eachFieldMode(raw, trusted, func(k, v []byte) error {
		switch string(k) {
		case "flowEmit":
			m.flowEmit, m.hasFlowEmit = stringBytes(v)
		case "kernel":
			m.kernel = isTrue(v)
		case "forkChain":
			m.forkChain = v
		case "forkedBy":
			m.forkedBy = v
		}
		return nil
	})
	switch {
	case err != nil:
		return m, err
	case !ok:
		if err := validJSON(raw); err != nil {
			return m, err
		}
		return m, errNotObject
	}
	return m, nil
}

var errNotObject = errors.New("want an object")

// protoKey is the container key the fold rejects (spec §4 fold hardening).
const protoKey = "__proto__"

func (ps *pass) apply(i int, e *spi.Envelope) error {
	m, err := readMeta(e.Metadata, ps.trusted)
	if err != nil {
		return inputErr(i, "metadata", "%v", err)
	}
	ps.payload, ps.checked = e.Payload, ps.trusted
	rejected := m.hasFlowEmit && string(m.flowEmit) == protoKey
	if !rejected {
		rejected = ps.handle(e, m)
	}
	if !ps.checked {
		if err := validJSON(e.Payload); err != nil {
			return inputErr(i, "payload", "%v", err)
		}
	}
	if !rejected && m.hasFlowEmit {
		v := &ps.s.Variables
		if v.FlowEmits == nil {
			v.FlowEmits = map[string]int64{}
		}
		if n, ok := v.FlowEmits[string(m.flowEmit)]; ok {
			v.FlowEmits[string(m.flowEmit)] = addCount(n)
		} else {
			v.FlowEmits[string(m.flowEmit)] = 1
		}
	}
	ps.s.Sequence = e.Sequence
	ps.s.UpdatedAt = NullInt{Int: e.Timestamp, Valid: true}
	return nil
}

// handle runs the event type's handler. It reports true when the envelope was rejected for a
// __proto__ container key, in which case it changed nothing. Unknown types are inert (spec §4).
func (ps *pass) handle(e *spi.Envelope, m meta) bool {
	if h := handlers[e.EventType]; h != nil {
		return h(ps, e, m)
	}
	return false
}

// handler folds one envelope; true means rejected (a __proto__ container key), nothing changed.
type handler func(ps *pass, e *spi.Envelope, m meta) bool

// logOnly is the handler of the facts that change no folded key (I-FOLD-6).
func logOnly(*pass, *spi.Envelope, meta) bool { return false }

// handlers is the immutable dispatch table: one entry per type of manifest.EventTypes(). Version
// gates (the kernel stamp, the profile) live in the handlers.
var handlers = map[string]handler{
	"EXECUTION_STARTED":   (*pass).executionStarted,
	"EXECUTION_SUSPENDED": func(ps *pass, e *spi.Envelope, _ meta) bool { return ps.executionSuspended(e) },
	"EXECUTION_RESUMED":   (*pass).executionResumed,
	"EXECUTION_COMPLETED": func(ps *pass, e *spi.Envelope, _ meta) bool {
		ps.executionEnded(StatusCompleted, VarOutput, "output", e.Payload)
		return false
	},
	"EXECUTION_FAILED": func(ps *pass, e *spi.Envelope, _ meta) bool {
		ps.executionEnded(StatusFailed, VarError, "error", e.Payload)
		return false
	},
	"EXECUTION_CANCELLED": func(ps *pass, e *spi.Envelope, _ meta) bool {
		ps.executionEnded(StatusCancelled, "", "", e.Payload)
		return false
	},
	"EXECUTION_MIGRATED": func(ps *pass, e *spi.Envelope, _ meta) bool {
		ps.executionMigrated(e)
		return false
	},
	"EXECUTION_CONTINUED": func(ps *pass, e *spi.Envelope, m meta) bool {
		if ps.p.wave2() && m.kernel {
			ps.executionContinued(e)
		}
		return false
	},
	"STEP_STARTED":      func(ps *pass, e *spi.Envelope, _ meta) bool { return ps.stepStarted(e) },
	"STEP_RETRYING":     func(ps *pass, e *spi.Envelope, _ meta) bool { return ps.stepRetrying(e) },
	"STEP_COMPLETED":    func(ps *pass, e *spi.Envelope, _ meta) bool { return ps.stepCompleted(e) },
	"STEP_FAILED":       func(ps *pass, e *spi.Envelope, _ meta) bool { return ps.stepFailed(e) },
	"STEP_CANCELLED":    func(ps *pass, e *spi.Envelope, _ meta) bool { return ps.stepCancelled(e) },
	"DECISION_RECORDED": (*pass).decisionRecorded,
	"RESOURCE_METERED":  func(ps *pass, e *spi.Envelope, _ meta) bool { return ps.resourceMetered(e) },
	"PARALLEL_COMPLETED": func(ps *pass, e *spi.Envelope, m meta) bool {
		return ps.p.wave2() && m.kernel && ps.parallelCompleted(e)
	},
	"EVENTS_REHOMED": func(ps *pass, e *spi.Envelope, _ meta) bool {
		if ps.p.eventsRehomed() {
			ps.eventsRehomed(e)
		}
		return false
	},
	"MESSAGE_CONSUMED": func(ps *pass, e *spi.Envelope, m meta) bool {
		return ps.p.wave2() && m.kernel && ps.messageConsumed(e)
	},
	"INBOX_QUARANTINED": func(ps *pass, e *spi.Envelope, m meta) bool {
		return ps.p.quarantine() && m.kernel && ps.inboxQuarantined(e)
	},
	"INBOX_RELEASED": func(ps *pass, e *spi.Envelope, m meta) bool {
		return ps.p.quarantine() && m.kernel && ps.inboxReleased(e)
	},
	"EXECUTION_RECOVERED": logOnly,
	"EFFECT_INDOUBT":      logOnly,
	"TIMER_FIRED":         logOnly,
	"APPROVAL_GRANTED":    logOnly,
	"QUOTA_EXCEEDED":      logOnly,
	"SAFETY_BLOCKED":      logOnly,
	"EGRESS_DENIED":       logOnly,
	"EFFECT_DENIED":       logOnly,
	"OUTCOME_RECORDED":    logOnly,
}

// fieldSet holds the raw values of up to eight named payload members; nil is absent.
type fieldSet [8][]byte

// fields extracts the named members of the payload object. ok is false when it is not an
// object (or not valid JSON: the pass then reports it).
func (ps *pass) fields(raw []byte, names ...string) (f fieldSet, ok bool) {
	ok, err := eachFieldMode(raw, ps.trusted, func(k, v []byte) error {
		for i, n := range names {
			if string(k) == n {
				f[i] = v
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return fieldSet{}, false
	}
	if ok && !ps.checked && len(raw) > 0 && &raw[0] == &ps.payload[0] && len(raw) == len(ps.payload) {
		ps.checked = true
	}
	return f, ok
}

// fields extracts the named members of an object already validated (a member of a payload).
func fields(raw []byte, names ...string) (f fieldSet, ok bool) {
	ok, _ = eachField(raw, func(k, v []byte) error {
		for i, n := range names {
			if string(k) == n {
				f[i] = v
				return nil
			}
		}
		return nil
	})
	return f, ok
}

// setVar sets or, for a nil value, removes a Values key.
func (ps *pass) setVar(key string, val []byte) {
	v := &ps.s.Variables
	if val == nil {
		if v.Values != nil {
			delete(v.Values, key)
		}
		return
	}
	if v.Values == nil {
		v.Values = map[string]json.RawMessage{}
	}
	v.Values[key] = val
}

func (ps *pass) hasVar(key string) bool {
	_, ok := ps.s.Variables.Values[key]
	return ok
}

// endPark removes the keys that live only while the execution is parked, each from the version
// that folds it: a profile writes and removes only the reserved keys its version knows, so an
// older profile leaves a _failedWhileParked (1.21.0) or _waits (1.23.0) it never wrote as it leaves
// any other variable.
func (ps *pass) endPark() {
	ps.setVar(VarSuspendedOn, nil)
	ps.clearParkKeys()
}

// clearParkKeys removes _failedWhileParked (from 1.21.0) and _waits (from 1.23.0).
func (ps *pass) clearParkKeys() {
	if !ps.p.stepFailedFailsExecution() {
		ps.setVar(VarFailedWhileParked, nil)
	}
	if ps.p.wave2() {
		ps.setVar(VarWaits, nil)
	}
}

var (
	rawTrue = []byte("true")
	rawNull = []byte("null")
	rawOne  = []byte("1")
)
