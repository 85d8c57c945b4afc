package fold

import (
	"encoding/json"
	"math"

	"github.com/loom-kernel/loom-conform/spi"
)

// decisionRecorded folds {id, choice, context?, policy?, innerSteps?} into _decisions: context and
// policy verbatim (1.18.0); innerSteps only from a kernel-stamped envelope (1.23.0); seq is the
// envelope sequence of the first record of the id, kept by a repeat and never invented (1.24.0).
// A repeat rebuilds the entry from its own payload.
func (ps *pass) decisionRecorded(e *spi.Envelope, m meta) bool {
	f, _ := ps.fields(e.Payload, "id", "choice", "context", "policy", "innerSteps")
	idb, ok := stringBytes(f[0])
	if !ok {
		return false
	}
	if string(idb) == protoKey {
		return true
	}
	d := Decision{Choice: f[1], Context: f[2], Policy: f[3]}
	if ps.p.wave2() && m.kernel {
		d.InnerSteps = f[4]
	}
	v := &ps.s.Variables
	prev, seen := v.Decisions[string(idb)]
	if ps.p.decisionSeq() {
		switch {
		case !seen:
			d.Seq, d.HasSeq = e.Sequence, true
		case prev.HasSeq:
			d.Seq, d.HasSeq = prev.Seq, true
		}
	}
	if v.Decisions == nil {
		v.Decisions = map[string]Decision{}
	}
	v.Decisions[string(idb)] = d // the key string is allocated only for a new id
	return false
}

// resourceDimensions are the fixed _resources dimensions (spec §8, ADR 0032).
var resourceDimensions = [...]string{"tokens", "costUsd", "ms", "memBytes", "wallMs", "netBytes"}

// ResourceDimensions returns the fixed _resources dimensions a RESOURCE_METERED payload and a
// carry's resources name (spec §8).
func ResourceDimensions() []string { return resourceDimensions[:] }

// meterValue reads a finite, non-negative number (I-FOLD-15, I-FOLD-29); anything else is not a
// measurement.
func meterValue(raw []byte) (float64, bool) {
	x, ok := finiteNumber(raw)
	return x, ok && x >= 0
}

// resourceMetered adds each measured dimension into the _resources accumulator (spec §8) and,
// since 1.23.0, each custom dimension into _resources.custom. A dimension is present only once
// measured (no false zeros).
func (ps *pass) resourceMetered(e *spi.Envelope) bool {
	f, ok := ps.fields(e.Payload, resourceDimensions[0], resourceDimensions[1], resourceDimensions[2],
		resourceDimensions[3], resourceDimensions[4], resourceDimensions[5], "custom")
	if !ok {
		return false
	}
	var custom map[string]float64
	if ps.p.wave2() && f[6] != nil {
		last := map[string][]byte{}                 // a repeated key keeps its last value, as JSON.parse does
		eachField(f[6], func(k, val []byte) error { //nolint:errcheck // validated
			last[string(k)] = val
			return nil
		})
		if _, proto := last[protoKey]; proto {
			return true
		}
		for k, val := range last {
			if x, ok := meterValue(val); ok {
				if custom == nil {
					custom = map[string]float64{}
				}
				custom[k] = x
			}
		}
	}
	v := &ps.s.Variables
	for i := range resourceDimensions {
		if x, ok := meterValue(f[i]); ok {
			ps.meter(i, x)
		}
	}
	for k, x := range custom {
		if v.ResourcesCustom == nil {
			v.ResourcesCustom = map[string]float64{}
		}
		v.ResourcesCustom[k] = addMeter(v.ResourcesCustom[k], x)
	}
	return false
}

// parallelCompleted (kernel-stamped, 1.23.0): _scopes[scopeId] = the payload, verbatim.
func (ps *pass) parallelCompleted(e *spi.Envelope) bool {
	f, _ := ps.fields(e.Payload, "scopeId")
	id, ok := stringValue(f[0])
	if !ok {
		return false
	}
	if id == protoKey {
		return true
	}
	v := &ps.s.Variables
	if v.Scopes == nil {
		v.Scopes = map[string]json.RawMessage{}
	}
	v.Scopes[id] = trimRaw(e.Payload)
	return false
}

// eventsRehomed (1.22.0): the payload appended to the _lifecycle audit list.
func (ps *pass) eventsRehomed(e *spi.Envelope) {
	v := &ps.s.Variables
	v.Lifecycle = append(v.Lifecycle, trimRaw(e.Payload))
}

// messageConsumed (kernel-stamped, 1.23.0): the topic's _inbox cursor advances; a waitId records
// the message in _waitAnswers; since 1.25.0 a delivered released entry leaves _quarantined.
func (ps *pass) messageConsumed(e *spi.Envelope) bool {
	f, _ := ps.fields(e.Payload, "topic", "messageId", "waitId", "message")
	topic, ok1 := stringValue(f[0])
	msgID, ok2 := stringValue(f[1])
	waitID, hasWait := stringValue(f[2])
	if (ok1 && topic == protoKey) || (hasWait && waitID == protoKey) {
		return true // a reserved key rejects before any member is judged (I-FOLD-30)
	}
	if !ok1 || !ok2 {
		return false
	}
	v := &ps.s.Variables
	if v.Inbox == nil {
		v.Inbox = map[string]InboxCursor{}
	}
	c := v.Inbox[topic]
	v.Inbox[topic] = InboxCursor{Count: addCount(c.Count), Last: msgID}
	if hasWait {
		if v.WaitAnswers == nil {
			v.WaitAnswers = map[string]json.RawMessage{}
		}
		msg := f[3]
		if msg == nil {
			msg = rawNull
		}
		v.WaitAnswers[waitID] = trimRaw(msg)
	}
	if ps.p.quarantine() {
		if q := v.Quarantined[topic]; len(q) > 0 && q[0].Released && q[0].MessageID == msgID {
			ps.dropHead(topic, q)
		}
	}
	return false
}

// addMeter is the _resources accumulator's sum (I-FOLD-21): the IEEE double sum, held at the
// largest finite double when it would overflow, so a finite payload never makes the state
// unprintable and the sum survives a snapshot round trip unchanged.
func addMeter(acc, x float64) float64 {
	if s := acc + x; s <= math.MaxFloat64 {
		return s
	}
	return math.MaxFloat64
}

// addCount is a folded counter's increment (_inbox counts, _flowEmits; I-FOLD-21): held at
// Number.MAX_SAFE_INTEGER, the largest integer a snapshot reader accepts (I-FOLD-22), so a state
// the fold prints can always be read back.
func addCount(n int64) int64 {
	if n >= maxSafeInt {
		return maxSafeInt
	}
	return n + 1
}

// meter adds x to dimension i of the pass's _resources accumulator.
func (ps *pass) meter(i int, x float64) {
	if !ps.resLoaded {
		for j, d := range resourceDimensions {
			ps.res[j], ps.resHas[j] = ps.s.Variables.Resources[d]
		}
		ps.resLoaded = true
	}
	ps.res[i] = addMeter(ps.res[i], x)
	ps.resHas[i] = true
	ps.resDirty = true
}

// flushResources writes the accumulator back into Variables.Resources; it runs before anything
// else writes that map and when the pass ends.
func (ps *pass) flushResources() {
	if ps.resDirty {
		v := &ps.s.Variables
		if v.Resources == nil {
			v.Resources = map[string]float64{}
		}
		for j, d := range resourceDimensions {
			if ps.resHas[j] {
				v.Resources[d] = ps.res[j]
			}
		}
	}
	ps.resLoaded, ps.resDirty = false, false
}
