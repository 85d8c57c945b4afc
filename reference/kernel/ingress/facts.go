package ingress

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// Facts are what the gate needs from the log beyond the folded state: log-only facts the fold
// does not keep (EFFECT_INDOUBT, the flow hash) and the history of parks and answers that
// attributes each _resumePayloads entry (the ambiguous-legacy rule and the legacy warning).
// Build them with FactsFrom over the WHOLE log (from sequence 0), the same envelopes the state was
// folded from; Evaluate refuses facts whose sequence differs from the state's.
type Facts struct {
	Sequence int64 // of the last envelope scanned; -1 for an empty log
	Status   string
	FlowHash string // EXECUTION_STARTED.flowHash, replaced by EXECUTION_MIGRATED.toFlowHash
	// InDoubt lists every EFFECT_INDOUBT fact, in log order.
	InDoubt []InDoubtFact
	// Parks lists every EXECUTION_SUSPENDED, in log order.
	Parks []Park
	// Entries attributes each _resumePayloads entry, in order (len == len(state _resumePayloads)).
	Entries []Entry
	// HumanSteps lists every step ever started with kind "human", by first start.
	HumanSteps []HumanStep
	// Base is the sequence a snapshot covers when the facts were built from it and the tail
	// after it (FactsAfterSnapshot): what happened at or before Base is known only as the
	// snapshot's state summarizes it. -1 when the whole log was scanned.
	Base    int64
	scanned bool
}

// InDoubtFact is one EFFECT_INDOUBT {stepId, attempt}.
type InDoubtFact struct {
	Sequence int64
	StepID   string
	Attempt  int64
}

// Park is one EXECUTION_SUSPENDED.
type Park struct {
	Sequence int64
	Gate     string // on
	StepID   string // condition.stepId: set on a human step's park (post-0104); "" = unattributed
	// Attempt is condition.attempt when HasAttempt (an in-doubt park names the attempt).
	Attempt    int64
	HasAttempt bool
	// Normal is false for the reserved gates whose null resume answers nothing (in doubt, diverged).
	Normal bool
}

// Entry is one _resumePayloads entry: the EXECUTION_RESUMED that added it and whether it answered
// a suspend point (it was recorded while the execution was parked on a normal gate). An entry that
// answered nothing can only come from a log written before the ingress gate (spec §5).
type Entry struct {
	Index    int
	Sequence int64
	Answered bool
	Gate     string // the gate it answered, when Answered
}

// HumanStep is a step started with kind "human".
type HumanStep struct {
	StepID     string
	FirstStart int64 // sequence of its first STEP_STARTED
	Open       bool  // started and not settled at the end of the log
}

// FactsFrom is FactsFor with the current fold profile.
func FactsFrom(events []spi.Envelope) (Facts, error) { return FactsFor(fold.Current(), events) }

// FactsFor scans one execution's whole log as the fold profile p folds it: it follows p's rules
// for the keys it tracks (status, park, _failedWhileParked, _resumePayloads), so len(Entries)
// equals the state's len(_resumePayloads) when the state was folded with the same profile. It
// expects envelopes the fold accepted (payload content it cannot read counts as absent, as in the
// fold); a sequence gap is an *InputError naming the index.
func FactsFor(p fold.Profile, events []spi.Envelope) (Facts, error) {
	return scanFrom(p, Facts{Sequence: -1, Status: fold.StatusPending, Base: -1, scanned: true}, nil, false, events)
}

// FactsAfterSnapshot builds the facts of a compacted log (spec §3, §7; I-LIFECYCLE-11): base is
// the state folded through base.Sequence (the snapshot the log resumes from) and tail the log
// after it, from base.Sequence+1 with no gap. The history the snapshot covers is summarized from
// the state: its status, the current park (gate and condition) when parked, and one answered
// entry per _resumePayloads entry; EFFECT_INDOUBT, the flow hash and human-step starts the
// snapshot covers are not known (Base records where the known history starts).
func FactsAfterSnapshot(p fold.Profile, base fold.State, tail []spi.Envelope) (Facts, error) {
	if base.Sequence < 0 {
		return FactsFor(p, tail)
	}
	f := Facts{Sequence: base.Sequence, Status: base.Status, Base: base.Sequence, scanned: true}
	for i := range base.Variables.ResumePayloads {
		f.Entries = append(f.Entries, Entry{Index: i, Sequence: -1, Answered: true})
	}
	var park *Park
	if base.Status == fold.StatusSuspended {
		on, _ := object(base.Variables.Values[fold.VarSuspendedOn])
		gate, _ := str(on["on"])
		pk := Park{Sequence: base.Sequence, Gate: gate}
		pk.Normal = gate != fold.GateInDoubt && (gate != fold.GateDiverged || !p.AtLeast(23))
		if c, ok := object(on["condition"]); ok {
			pk.StepID, _ = str(c["stepId"])
			pk.Attempt, pk.HasAttempt = integer(c["attempt"])
		}
		f.Parks = append(f.Parks, pk)
		park = &f.Parks[0]
	}
	fwp := string(base.Variables.Values[fold.VarFailedWhileParked]) == "true"
	return scanFrom(p, f, park, fwp, tail)
}

// scanFrom continues a scan from f (park and failedWhileParked as the scan left them).
func scanFrom(p fold.Profile, f Facts, park *Park, failedWhileParked bool, events []spi.Envelope) (Facts, error) {
	sc := scan{p: p, wave2: p.AtLeast(23), fwp: p.AtLeast(21)}
	human := map[string]int{} // stepId -> index in HumanSteps
	for i := range events {
		e := &events[i]
		if e.Sequence != f.Sequence+1 {
			return Facts{}, &InputError{Field: fmt.Sprintf("events[%d].sequence", i),
				Detail: fmt.Sprintf("got %d, want %d (facts need the whole log from sequence 0, or from a snapshot's next sequence)", e.Sequence, f.Sequence+1)}
		}
		f.Sequence = e.Sequence
		if !f.needs(e, len(human) > 0, sc.fwp) {
			continue
		}
		p, _ := object(e.Payload)
		switch e.EventType {
		case manifest.ExecutionStarted:
			if rejectedAlone(sc.p, e, fold.StatusRunning) {
				break // a __proto__ key in the carry: the fold rejects the envelope
			}
			f.Status = fold.StatusRunning
			if h, ok := str(p["flowHash"]); ok {
				f.FlowHash = h
			}
		case manifest.ExecutionMigrated:
			if h, ok := str(p["toFlowHash"]); ok {
				f.FlowHash = h
			}
		case manifest.ExecutionSuspended:
			if rejectedAlone(sc.p, e, fold.StatusSuspended) {
				break // a __proto__ waitId: the fold rejects the envelope
			}
			gate, _ := str(p["on"])
			pk := Park{Sequence: e.Sequence, Gate: gate, Normal: gate != fold.GateInDoubt && (gate != fold.GateDiverged || !sc.wave2)}
			if c, ok := object(p["condition"]); ok {
				pk.StepID, _ = str(c["stepId"])
				pk.Attempt, pk.HasAttempt = integer(c["attempt"])
			}
			f.Parks = append(f.Parks, pk)
			park = &f.Parks[len(f.Parks)-1]
			f.Status = fold.StatusSuspended
			failedWhileParked = false
		case manifest.ExecutionResumed:
			if id, ok := waitAddressed(e, p); ok && sc.wave2 {
				if id == protoKey {
					break // rejected by the fold
				}
				f.Status, park, failedWhileParked = fold.StatusRunning, nil, false
				break
			}
			parkedNormal := f.Status == fold.StatusSuspended && park != nil && park.Normal
			if !isNull(e.Payload) || (parkedNormal && !failedWhileParked) {
				en := Entry{Index: len(f.Entries), Sequence: e.Sequence, Answered: parkedNormal}
				if parkedNormal {
					en.Gate = park.Gate
				}
				f.Entries = append(f.Entries, en)
			}
			f.Status, park, failedWhileParked = fold.StatusRunning, nil, false
		case manifest.ExecutionCompleted, manifest.ExecutionFailed, manifest.ExecutionCancelled:
			f.Status = map[string]string{
				manifest.ExecutionCompleted: fold.StatusCompleted,
				manifest.ExecutionFailed:    fold.StatusFailed,
				manifest.ExecutionCancelled: fold.StatusCancelled,
			}[e.EventType]
			park, failedWhileParked = nil, false
		case manifest.ExecutionContinued:
			if sc.wave2 && isKernel(e) && !isNull(p["continuedTo"]) {
				f.Status, park, failedWhileParked = fold.StatusContinued, nil, false
			}
		case manifest.StepStarted:
			id, ok := str(p["stepId"])
			if !ok || id == protoKey {
				break
			}
			if k, _ := str(p["kind"]); k == "human" {
				if j, seen := human[id]; seen {
					f.HumanSteps[j].Open = true
				} else {
					human[id] = len(f.HumanSteps)
					f.HumanSteps = append(f.HumanSteps, HumanStep{StepID: id, FirstStart: e.Sequence, Open: true})
				}
			}
		case manifest.StepCompleted, manifest.StepFailed, manifest.StepCancelled:
			id, ok := str(p["stepId"])
			if !ok || id == protoKey {
				break
			}
			if j, seen := human[id]; seen {
				f.HumanSteps[j].Open = false
			}
			switch {
			case e.EventType != manifest.StepFailed:
			case !sc.fwp: // before 1.21.0 a step failure failed the execution (ADR 0105)
				f.Status = fold.StatusFailed
			case f.Status == fold.StatusSuspended:
				failedWhileParked = true
			}
		case manifest.EffectInDoubt:
			id, ok1 := str(p["stepId"])
			at, ok2 := integer(p["attempt"])
			if ok1 && ok2 {
				f.InDoubt = append(f.InDoubt, InDoubtFact{Sequence: e.Sequence, StepID: id, Attempt: at})
			}
		}
	}
	return f, nil
}

// needs reports whether the scan reads e's payload: only the kinds it tracks, a STEP_STARTED only
// when it may be a human step, and a settling STEP_* only when a human step is known or the
// execution is parked (so a long log of ordinary steps is skipped, not decoded).
func (f *Facts) needs(e *spi.Envelope, humans, fwp bool) bool {
	switch e.EventType {
	case manifest.ExecutionStarted, manifest.ExecutionMigrated, manifest.ExecutionSuspended, manifest.ExecutionResumed,
		manifest.ExecutionCompleted, manifest.ExecutionFailed, manifest.ExecutionCancelled, manifest.ExecutionContinued,
		manifest.EffectInDoubt:
		return true
	case manifest.StepStarted:
		return bytes.Contains(e.Payload, []byte("human")) || bytes.IndexByte(e.Payload, '\\') >= 0
	case manifest.StepCompleted, manifest.StepCancelled:
		return humans
	case manifest.StepFailed:
		return humans || f.Status == fold.StatusSuspended || !fwp
	}
	return false
}

// scan holds the profile-dependent switches of one FactsFor pass.
type scan struct {
	p     fold.Profile
	wave2 bool // 1.23.0: wait-addressed resumes, EXECUTION_CONTINUED, the status-only divergence gate
	fwp   bool // 1.21.0: STEP_FAILED no longer fails the execution; _failedWhileParked
}

// waitAddressed reports a kernel-stamped {waitId, answer} resume (1.23.0): it addresses a wait and
// adds no _resumePayloads entry.
func waitAddressed(e *spi.Envelope, p map[string]json.RawMessage) (string, bool) {
	if !isKernel(e) || p == nil {
		return "", false
	}
	id, isStr := str(p["waitId"])
	_, hasAnswer := p["answer"]
	return id, isStr && hasAnswer
}

// protoKey is the container key the fold rejects (spec §4 fold hardening).
const protoKey = "__proto__"

// rejectedAlone reports whether the fold rejects e for a __proto__ container key, by folding e
// alone: its handler would set status want, and a rejected envelope changes nothing. Rejection
// depends on the payload only, so the answer holds in any state; asking the fold keeps the scan
// exact without copying its hardening rules.
func rejectedAlone(p fold.Profile, e *spi.Envelope, want string) bool {
	one := *e
	one.Sequence = 0
	st, err := fold.Fold(p, nil, []spi.Envelope{one})
	return err == nil && st.Status != want
}

func isKernel(e *spi.Envelope) bool {
	m, ok := object(e.Metadata)
	return ok && string(m["kernel"]) == "true"
}

// currentPark returns the last park when the facts end parked.
func (f *Facts) currentPark() (Park, bool) {
	if f.Status != fold.StatusSuspended || len(f.Parks) == 0 {
		return Park{}, false
	}
	return f.Parks[len(f.Parks)-1], true
}
