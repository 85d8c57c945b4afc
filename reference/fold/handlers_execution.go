package fold

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/spi"
)

// executionStarted: status running, startedAt, _input; since 1.23.0 _principal, _parent, _chain,
// _codeHash and a validated carry (spec §4).
func (ps *pass) executionStarted(e *spi.Envelope, m meta) bool {
	f, _ := ps.fields(e.Payload, "input", "codeHash", "principal", "parent", "chain", "carry")
	var c carry
	if ps.p.wave2() && f[5] != nil {
		var proto bool
		c, proto = readCarry(f[5], ps.p.quarantine())
		if proto {
			return true
		}
	}
	s := ps.s
	s.Status = StatusRunning
	s.StartedAt = NullInt{Int: e.Timestamp, Valid: true}
	ps.setVar(VarInput, f[0])
	if !ps.p.wave2() {
		return false
	}
	ps.setIfPresent(VarCodeHash, f[1])
	ps.setIfPresent(VarPrincipal, f[2])
	parent, chain := f[3], f[4]
	if m.kernel { // a fork's copied start names its lineage in metadata (I-FOLD-7)
		if parent == nil {
			parent = m.forkedBy
		}
		if chain == nil {
			chain = m.forkChain
		}
	}
	ps.setIfPresent(VarParent, parent)
	ps.setIfPresent(VarChain, chain)
	if c.valid {
		ps.flushResources()
		v := &s.Variables
		if c.resources != nil {
			v.Resources = c.resources
		}
		if c.custom != nil {
			v.ResourcesCustom = c.custom
		}
		// An empty member seeds nothing, like resources {} (I-FOLD-26): a reserved key is absent
		// until something is in it, and _quarantined is never empty (I-FOLD-10).
		if len(c.inbox) > 0 {
			v.Inbox = c.inbox
		}
		if len(c.quarantined) > 0 {
			v.Quarantined = c.quarantined
			ps.resetQueues()
		}
	}
	return false
}

func (ps *pass) setIfPresent(key string, val []byte) {
	if val != nil {
		ps.setVar(key, val)
	}
}

// executionSuspended: status suspended, _suspendedOn, _waits (1.23.0); ends a parked failure.
func (ps *pass) executionSuspended(e *spi.Envelope) bool {
	f, _ := ps.fields(e.Payload, "on", "timeout", "wakeAt", "correlationKey", "condition", "waits")
	var waits []byte
	if ps.p.wave2() && f[5] != nil {
		var proto bool
		if waits, proto = readWaits(f[5]); proto {
			return true
		}
	}
	on := newObjectBuilder()
	on.add("condition", f[4])
	on.add("correlationKey", f[3])
	on.add("on", f[0])
	on.add("timeout", f[1])
	on.add("wakeAt", f[2])
	ps.s.Status = StatusSuspended
	ps.setVar(VarSuspendedOn, on.bytes())
	ps.clearParkKeys()
	if waits != nil {
		ps.setVar(VarWaits, waits)
	}
	return false
}

// readWaits builds the _waits object {waitId: wait} from a waits[] array; entries that are not
// objects with a string waitId are skipped. proto is true when a waitId is __proto__.
func readWaits(raw []byte) (out []byte, proto bool) {
	b := newObjectBuilder()
	eachElem(raw, func(w []byte) error { //nolint:errcheck // validated
		f, ok := fields(w, "waitId")
		if !ok {
			return nil
		}
		id, isStr := stringValue(f[0])
		if !isStr {
			return nil
		}
		if id == protoKey {
			proto = true
		}
		b.set(id, w)
		return nil
	})
	if proto || !isArray(raw) {
		return nil, proto
	}
	return b.bytes(), false
}

// executionResumed: the null-resume rules (1.20.0, 1.21.0, 1.23.0), _resumePayloads (1.16.0) and
// the kernel-stamped wait-addressed resume (1.23.0).
func (ps *pass) executionResumed(e *spi.Envelope, m meta) bool {
	v := &ps.s.Variables
	if ps.p.wave2() && m.kernel {
		if f, ok := ps.fields(e.Payload, "waitId", "answer"); ok && f[1] != nil {
			if id, isStr := stringValue(f[0]); isStr {
				if id == protoKey {
					return true
				}
				if v.WaitAnswers == nil {
					v.WaitAnswers = map[string]json.RawMessage{}
				}
				v.WaitAnswers[id] = f[1]
				ps.s.Status = StatusRunning
				ps.endPark()
				return false
			}
		}
	}
	if !isNull(e.Payload) || ps.answersGate() {
		v.ResumePayloads = append(v.ResumePayloads, trimRaw(e.Payload))
	}
	ps.s.Status = StatusRunning
	ps.endPark()
	return false
}

// answersGate reports whether a null resume now answers a suspend point: the execution is parked,
// not in doubt, not on the divergence gate (1.23.0) and no step failed while parked (1.21.0; an
// older profile does not read the flag).
func (ps *pass) answersGate() bool {
	if ps.s.Status != StatusSuspended || (!ps.p.stepFailedFailsExecution() && ps.hasVar(VarFailedWhileParked)) {
		return false
	}
	f, _ := fields(ps.s.Variables.Values[VarSuspendedOn], "on")
	gate, _ := stringValue(f[0])
	if gate == GateInDoubt || (gate == GateDiverged && ps.p.wave2()) {
		return false
	}
	return true
}

// executionEnded: COMPLETED (_output), FAILED (_error), CANCELLED; each ends a park.
func (ps *pass) executionEnded(status, key, member string, payload []byte) {
	ps.s.Status = status
	if key != "" {
		f, _ := ps.fields(payload, member)
		ps.setVar(key, f[0])
	}
	ps.endPark()
}

// executionMigrated: migratedInput replaces _input (1.15.0); toCodeHash replaces _codeHash (1.23.0).
func (ps *pass) executionMigrated(e *spi.Envelope) {
	f, _ := ps.fields(e.Payload, "migratedInput", "toCodeHash")
	ps.setIfPresent(VarInput, f[0])
	if ps.p.wave2() {
		ps.setIfPresent(VarCodeHash, f[1])
	}
}

// executionContinued (kernel-stamped, 1.23.0): terminal status continued and _continuedTo.
func (ps *pass) executionContinued(e *spi.Envelope) {
	f, _ := ps.fields(e.Payload, "continuedTo")
	if f[0] == nil || isNull(f[0]) {
		return
	}
	ps.s.Status = StatusContinued
	ps.setVar(VarContinuedTo, f[0])
	ps.endPark()
}
