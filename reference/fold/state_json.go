package fold

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalJSON prints the state in canonical JSON (DESIGN §3.2, §3.3): exactly the six top-level
// keys, object keys sorted by UTF-16 code units, numbers as JavaScript prints them.
func (s State) MarshalJSON() ([]byte, error) {
	out, err := appendState(make([]byte, 0, 1024), &s)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CanonicalState is s.MarshalJSON: the bytes two equal states share.
func CanonicalState(s State) ([]byte, error) { return s.MarshalJSON() }

// Equal reports whether two states are equal: their canonical JSON bytes are identical.
func Equal(a, b State) bool {
	x, err1 := a.MarshalJSON()
	y, err2 := b.MarshalJSON()
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func putRaw(m map[string]any, key string, v json.RawMessage) {
	if v != nil {
		m[key] = v
	}
}

func (fr Frame) tree() map[string]any {
	m := make(map[string]any, 8+len(fr.Extra))
	for k, v := range fr.Extra {
		m[k] = v
	}
	m["stepId"] = fr.StepID
	m["status"] = fr.Status
	attempt := fr.Attempt
	if attempt == nil {
		attempt = rawOne
	}
	m["attempt"] = attempt
	putRaw(m, "input", fr.Input)
	putRaw(m, "output", fr.Output)
	putRaw(m, "error", fr.Error)
	putRaw(m, "errorChannel", fr.ErrorChannel)
	putRaw(m, "errorPayload", fr.ErrorPayload)
	return m
}

func (d Decision) tree() map[string]any {
	m := make(map[string]any, 5+len(d.Extra))
	for k, v := range d.Extra {
		m[k] = v
	}
	putRaw(m, "choice", d.Choice)
	putRaw(m, "context", d.Context)
	putRaw(m, "policy", d.Policy)
	putRaw(m, "innerSteps", d.InnerSteps)
	if d.HasSeq {
		m["seq"] = d.Seq
	}
	return m
}

// UnmarshalJSON reads a state in the JSON form of DESIGN §3.2 (see ParseState).
func (s *State) UnmarshalJSON(b []byte) error {
	st, err := ParseState(b)
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// snapErr is an InputError about the snapshot.
func snapErr(field, format string, a ...any) error {
	if field != "" {
		field = "snapshot." + field
	} else {
		field = "snapshot"
	}
	return &InputError{Index: -1, Field: field, Msg: fmt.Sprintf(format, a...)}
}

var (
	execStatuses  = []string{StatusPending, StatusRunning, StatusSuspended, StatusCompleted, StatusFailed, StatusCancelled, StatusContinued}
	frameStatuses = []string{FrameRunning, FrameRetrying, FrameCompleted, FrameFailed, FrameCancelled}
)

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// ParseState reads a state in the JSON form of DESIGN §3.2: exactly the six top-level keys, with
// the shapes the fold writes. Key order and whitespace do not matter (a store that normalises
// JSON, as PostgreSQL jsonb does, round-trips); a repeated key counts once, with its last value,
// as JSON.parse reads it (I-FOLD-31). Any other shape is an *InputError naming the field (the
// first one in document order); a __proto__ container key is refused as the fold refuses one. The
// input is copied.
func ParseState(b []byte) (State, error) {
	b = bytes.Clone(b)
	if err := validJSON(b); err != nil {
		return State{}, snapErr("", "%v", err)
	}
	ms, isObj := objectMembers(b)
	if !isObj {
		return State{}, snapErr("", "want an object")
	}
	top := map[string][]byte{}
	for _, m := range ms {
		switch m.key {
		case "status", "frames", "variables", "sequence", "startedAt", "updatedAt":
			top[m.key] = m.val
		default:
			return State{}, snapErr(m.key, "unknown top-level key (a state has exactly six)")
		}
	}
	var s State
	var ok bool
	if s.Status, ok = stringValue(top["status"]); !ok || !oneOf(s.Status, execStatuses) {
		return State{}, snapErr("status", "want one of %v", execStatuses)
	}
	if s.Sequence, ok = intValue(top["sequence"]); !ok || s.Sequence < -1 {
		return State{}, snapErr("sequence", "want an integer >= -1")
	}
	for _, t := range []struct {
		name string
		dst  *NullInt
	}{{"startedAt", &s.StartedAt}, {"updatedAt", &s.UpdatedAt}} {
		raw := top[t.name]
		if raw == nil {
			return State{}, snapErr(t.name, "missing")
		}
		if isNull(raw) {
			continue
		}
		n, ok := intValue(raw)
		if !ok {
			return State{}, snapErr(t.name, "want an integer or null")
		}
		*t.dst = NullInt{Int: n, Valid: true}
	}
	var err error
	if s.Frames, err = parseFrames(top["frames"]); err != nil {
		return State{}, err
	}
	if s.Variables, err = parseVariables(top["variables"]); err != nil {
		return State{}, err
	}
	return s, nil
}

func parseFrames(raw []byte) (map[string]Frame, error) {
	if raw == nil {
		return nil, snapErr("frames", "missing")
	}
	ms, isObj := objectMembers(raw)
	if !isObj {
		return nil, snapErr("frames", "want an object")
	}
	if len(ms) == 0 {
		return nil, nil
	}
	frames := make(map[string]Frame, len(ms))
	for _, m := range ms {
		id, field := m.key, "frames."+m.key
		if id == protoKey {
			return nil, snapErr(field, "__proto__ is not a valid stepId")
		}
		fr := Frame{}
		fms, isObj := objectMembers(m.val)
		for _, f := range fms {
			switch f.key {
			case "stepId":
				fr.StepID, _ = stringValue(f.val)
			case "status":
				fr.Status, _ = stringValue(f.val)
			case "attempt":
				fr.Attempt = f.val
			case "input":
				fr.Input = f.val
			case "output":
				fr.Output = f.val
			case "error":
				fr.Error = f.val
			case "errorChannel":
				fr.ErrorChannel = f.val
			case "errorPayload":
				fr.ErrorPayload = f.val
			default:
				if fr.Extra == nil {
					fr.Extra = map[string]json.RawMessage{}
				}
				fr.Extra[f.key] = f.val
			}
		}
		switch {
		case !isObj:
			return nil, snapErr(field, "want an object")
		case fr.StepID != id:
			return nil, snapErr(field+".stepId", "want %q (the frame's key)", id)
		case !oneOf(fr.Status, frameStatuses):
			return nil, snapErr(field+".status", "want one of %v", frameStatuses)
		case attemptOf(fr.Attempt) == nil:
			return nil, snapErr(field+".attempt", "want a finite number")
		}
		frames[id] = fr
	}
	return frames, nil
}

func parseVariables(raw []byte) (Variables, error) {
	var v Variables
	if raw == nil {
		return v, snapErr("variables", "missing")
	}
	ms, isObj := objectMembers(raw)
	if !isObj {
		return Variables{}, snapErr("variables", "want an object")
	}
	for _, m := range ms {
		if err := v.parseKey(m.key, m.val); err != nil {
			return Variables{}, err
		}
	}
	return v, nil
}

func (v *Variables) parseKey(key string, val []byte) error {
	field := "variables." + key
	switch key {
	case VarResumePayloads, VarLifecycle:
		l := []json.RawMessage{}
		isArr, _ := eachElem(val, func(e []byte) error {
			l = append(l, e)
			return nil
		})
		if !isArr {
			return snapErr(field, "want an array")
		}
		if key == VarResumePayloads {
			v.ResumePayloads = l
		} else {
			v.Lifecycle = l
		}
	case VarFlowEmits:
		ms, isObj := objectMembers(val)
		if !isObj {
			return snapErr(field, "want an object")
		}
		v.FlowEmits = make(map[string]int64, len(ms))
		for _, m := range ms {
			c, ok := intValue(m.val)
			switch {
			case m.key == protoKey:
				return snapErr(field+"."+protoKey, "__proto__ is not a valid digest")
			case !ok || c < 0:
				return snapErr(field+"."+m.key, "want a non-negative integer")
			}
			v.FlowEmits[m.key] = c
		}
	case VarDecisions:
		ms, isObj := objectMembers(val)
		if !isObj {
			return snapErr(field, "want an object")
		}
		v.Decisions = make(map[string]Decision, len(ms))
		for _, m := range ms {
			if m.key == protoKey {
				return snapErr(field+"."+protoKey, "__proto__ is not a valid decision id")
			}
			d, err := parseDecision(field+"."+m.key, m.val)
			if err != nil {
				return err
			}
			v.Decisions[m.key] = d
		}
	case VarInbox:
		in, ok := readInbox(val)
		if !ok || hasProtoKey(val) {
			return snapErr(field, "want {topic: {count, last}} (no other member in a cursor) without __proto__ topics")
		}
		v.Inbox = in
	case VarWaitAnswers, VarScopes:
		ms, isObj := objectMembers(val)
		if !isObj || hasProtoKey(val) {
			return snapErr(field, "want an object without a __proto__ key")
		}
		m := make(map[string]json.RawMessage, len(ms))
		for _, e := range ms {
			m[e.key] = e.val
		}
		if key == VarWaitAnswers {
			v.WaitAnswers = m
		} else {
			v.Scopes = m
		}
	case VarResources:
		dims, custom, ok := readResources(val)
		if !ok || resourcesProto(val) {
			return snapErr(field, "want {dimension: finite number >= 0, custom?: {name: finite number >= 0}} without a __proto__ key")
		}
		v.Resources = dims
		if v.Resources == nil {
			v.Resources = map[string]float64{}
		}
		v.ResourcesCustom = custom
	case VarQuarantined:
		q, ok := readQuarantined(val)
		if !ok || hasProtoKey(val) {
			return snapErr(field, "want {topic: [{messageId, state, message?}]} (no other member in an entry) of shape released? held*, at most %d entries, without a __proto__ topic", MaxQuarantined)
		}
		v.Quarantined = q
	case VarWaits: // an object the fold writes keyed by wait id (I-FOLD-24)
		if !isObject(val) || hasProtoKey(val) {
			return snapErr(field, "want an object without a __proto__ key")
		}
		v.setValue(key, val)
	case VarSuspendedOn: // an object the fold writes; its keys are never names, so __proto__ is data
		if !isObject(val) {
			return snapErr(field, "want an object")
		}
		v.setValue(key, val)
	case VarFailedWhileParked:
		if !isTrue(val) {
			return snapErr(field, "want true (the fold writes nothing else)")
		}
		v.setValue(key, val)
	case protoKey:
		return snapErr(field, "__proto__ is not a valid variable name")
	default:
		v.setValue(key, val)
	}
	return nil
}

// parseDecision reads one _decisions entry (field names it in errors).
func parseDecision(field string, raw []byte) (Decision, error) {
	var d Decision
	ms, isObj := objectMembers(raw)
	if !isObj {
		return d, snapErr(field, "want an object")
	}
	for _, m := range ms {
		switch m.key {
		case "choice":
			d.Choice = m.val
		case "context":
			d.Context = m.val
		case "policy":
			d.Policy = m.val
		case "innerSteps":
			d.InnerSteps = m.val
		case "seq":
			n, ok := intValue(m.val)
			if !ok || n < 0 {
				return d, snapErr(field+".seq", "want a non-negative integer")
			}
			d.Seq, d.HasSeq = n, true
		default:
			if d.Extra == nil {
				d.Extra = map[string]json.RawMessage{}
			}
			d.Extra[m.key] = m.val
		}
	}
	return d, nil
}

func (v *Variables) setValue(key string, val []byte) {
	if v.Values == nil {
		v.Values = map[string]json.RawMessage{}
	}
	v.Values[key] = val
}
